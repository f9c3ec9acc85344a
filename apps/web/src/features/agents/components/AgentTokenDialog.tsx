import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconInfoCircle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { AgentRecord } from '@postern/protocol';
import { installCommand } from '../install-command';
import { AgentEnrolment } from './AgentEnrolment';
import { CopyableValue } from './CopyableValue';

/** Why the token dialog opened: it says a little more after a create or a rotation. */
export type TokenDialogReason = 'created' | 'viewed' | 'rotated';

/** Props of {@link AgentTokenDialog}. */
export interface AgentTokenDialogProps {
  /**
   * The agent whose token to show, as last polled (its enrolment shows live); null keeps the
   * dialog closed.
   */
  agent: AgentRecord | null;
  reason: TokenDialogReason;
  onClose: () => void;
  /** The console's own origin, which serves the install script (window.location.origin). */
  origin?: string;
  /**
   * The server's public URL (the admin status's PublicUrl): null when none is set, undefined until
   * known. When there is one, the command fetches the script from it (the address the browser used
   * may be loopback or an internal name the agent's host cannot reach), and the script knows where
   * to connect. Otherwise the command uses `origin` and names it with --server, since the served
   * script has no address of its own; when there is known to be none, the dialog says so and how
   * to set it.
   */
  publicUrl?: string | null;
}

/**
 * The token/install dialog: the one-line setup command and the token, each with a copy button, and
 * the agent's enrolment as it happens (waiting, then connected with its key and what it found).
 * After a create it says the token can be viewed later; after a rotation, that the old one is dead.
 */
export function AgentTokenDialog({
  agent,
  reason,
  onClose,
  origin = window.location.origin,
  publicUrl,
}: AgentTokenDialogProps) {
  const { t } = useTranslation();
  const configured = typeof publicUrl === 'string';
  const scriptOrigin = configured ? publicUrl : origin;
  const guessedServer = configured ? undefined : origin;
  const note =
    reason === 'created'
      ? t('agentsScreen.token.viewLater')
      : reason === 'rotated'
        ? t('agentsScreen.token.rotated')
        : null;
  return (
    <Modal
      opened={agent !== null}
      onClose={onClose}
      title={t('agentsScreen.token.title', { name: agent?.Name ?? '' })}
      centered
      size="lg"
      closeButtonProps={{ 'aria-label': t('dialog.close') }}
    >
      {agent === null ? null : (
        <Stack>
          <Text size="sm">{t('agentsScreen.token.intro')}</Text>
          <CopyableValue
            label={t('agentsScreen.token.command')}
            value={installCommand(scriptOrigin, agent.Token, guessedServer)}
            copyLabel={t('agentsScreen.token.copyCommand')}
          />
          {publicUrl === null ? (
            <Alert
              variant="light"
              color="orange"
              icon={<IconAlertTriangle aria-hidden />}
              title={t('agentsScreen.token.serverGuessTitle')}
            >
              {t('agentsScreen.token.serverGuess', { origin })}
            </Alert>
          ) : null}
          <AgentEnrolment agent={agent} />
          <CopyableValue
            label={t('agentsScreen.token.token')}
            value={agent.Token}
            copyLabel={t('agentsScreen.token.copyToken')}
          />
          <Text size="sm" c="dimmed">
            {t('agentsScreen.token.secret')}
          </Text>
          {note === null ? null : (
            <Alert variant="light" color="blue" icon={<IconInfoCircle aria-hidden />}>
              {note}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button onClick={onClose}>{t('dialog.close')}</Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
