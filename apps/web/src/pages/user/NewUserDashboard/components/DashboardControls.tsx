import { SegmentedControl } from '@mantine/core';
import { IconClock, IconClockOff } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { HeaderButton } from '@/components/HeaderButton';
import type { DashboardView } from '../../../../features/acls/preferences';

/** Props of {@link ViewToggle}. */
export interface ViewToggleProps {
  view: DashboardView;
  onChange: (view: DashboardView) => void;
}

/** Cards or List: radio buttons in a group named 'Layout'. */
export function ViewToggle({ view, onChange }: ViewToggleProps) {
  const { t } = useTranslation();
  return (
    <SegmentedControl
      aria-label={t('home.view.label')}
      value={view}
      onChange={(value) => onChange(value === 'list' ? 'list' : 'cards')}
      data={[
        { value: 'cards', label: t('home.view.cards') },
        { value: 'list', label: t('home.view.list') },
      ]}
    />
  );
}

/** Props of {@link HideTimerButton}. */
export interface HideTimerButtonProps {
  hidden: boolean;
  onToggle: () => void;
}

/** Hide Timer / Show Timer: offered in high-accessibility mode, for people a running clock distracts. */
export function HideTimerButton({ hidden, onToggle }: HideTimerButtonProps) {
  const { t } = useTranslation();
  const Glyph = hidden ? IconClock : IconClockOff;
  return (
    <HeaderButton
      label={t(hidden ? 'home.showTimer' : 'home.hideTimer')}
      icon={<Glyph size={16} aria-hidden />}
      onClick={onToggle}
    />
  );
}
