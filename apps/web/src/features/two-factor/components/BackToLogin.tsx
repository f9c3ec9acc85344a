import { Anchor, Center } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { clearSession } from '../../../lib/session/session-store';
import { LOGIN_PATH, type Area } from '../../../lib/area';

/**
 * "Back to sign in" from a two-factor screen. An admin's half-finished sign-in is forgotten on the
 * way, so the admin login starts afresh; the server lets the pending session run out on its own.
 */
export function BackToLogin({ realm }: { realm: Area }) {
  const { t } = useTranslation();
  return (
    <Center>
      <Anchor
        component={Link}
        to={LOGIN_PATH[realm]}
        replace
        size="sm"
        onClick={realm === 'admin' ? () => clearSession('admin') : undefined}
      >
        {t('twoFactor.backToLogin')}
      </Anchor>
    </Center>
  );
}
