import { useContext, useId } from 'react';
import { Group, Text } from '@mantine/core';
import { CompactHeaderContext } from '@/components/HeaderButton';
import { COUNTDOWN_WARNING_SECONDS } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import { STATUS_COLOURS } from '../../acls/status-colours';
import { useNow } from '../../../lib/time/use-now';
import { formatCountdown, secondsUntil } from '../countdown';

/** Props of {@link SessionCountdown}. */
export interface SessionCountdownProps {
  /** ISO 8601 end of the session. */
  ends: string;
}

/**
 * 'Session expires in' and HH:MM:SS, ticking each second, orange under 900 seconds (spec §2, §9). A
 * timer role, which screen readers do not announce on every tick; the time sits in its own element so
 * it can be found as such.
 */
export function SessionCountdown({ ends }: SessionCountdownProps) {
  const { t } = useTranslation();
  const labelId = useId();
  const left = secondsUntil(ends, useNow(1_000));
  const warning = left < COUNTDOWN_WARNING_SECONDS;
  // In a phone's header the label sits above the time, so the countdown fits beside the greeting.
  const compact = useContext(CompactHeaderContext);
  return (
    <Group
      gap={compact ? 0 : 6}
      wrap="nowrap"
      style={compact ? { flexDirection: 'column', alignItems: 'flex-end' } : undefined}
      role="timer"
      aria-labelledby={labelId}
      aria-live="off"
    >
      <Text span size={compact ? 'xs' : 'sm'} c="dimmed" id={labelId}>
        {t('home.sessionExpiresIn')}
      </Text>
      <Text
        span
        fw={700}
        ff="monospace"
        fz={compact ? 'lg' : 'xl'}
        style={warning ? { color: STATUS_COLOURS.warning } : undefined}
        data-warning={warning}
      >
        {formatCountdown(left)}
      </Text>
    </Group>
  );
}
