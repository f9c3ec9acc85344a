import { ActionIcon, Tooltip } from '@mantine/core';
import { IconStar, IconStarFilled } from '@tabler/icons-react';
import { TOOLTIP_DELAY_MS } from '@postern/protocol';
import { useTranslation } from 'react-i18next';

/** Props of {@link FavouriteToggle}. */
export interface FavouriteToggleProps {
  /** The ACL's description, for the button's name. */
  name: string;
  favourite: boolean;
  onToggle: () => void;
}

/** A star that marks an ACL as a favourite or unmarks it (its name says which it will do). */
export function FavouriteToggle({ name, favourite, onToggle }: FavouriteToggleProps) {
  const { t } = useTranslation();
  const label = t(favourite ? 'acl.removeFavourite' : 'acl.addFavourite', { name });
  const Glyph = favourite ? IconStarFilled : IconStar;
  return (
    <Tooltip label={label} openDelay={TOOLTIP_DELAY_MS}>
      <ActionIcon
        variant="subtle"
        color={favourite ? 'yellow' : 'gray'}
        size="lg"
        aria-label={label}
        onClick={onToggle}
      >
        <Glyph size={20} aria-hidden />
      </ActionIcon>
    </Tooltip>
  );
}
