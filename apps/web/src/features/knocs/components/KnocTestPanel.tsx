import { useState } from 'react';
import { Alert, Button, Group, Loader, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconAlertCircle, IconAlertTriangle, IconCircleCheck, IconPlayerPlay } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { NO_AGENT_ID, type KnocRecord, type KnocTestReadBackState, type KnocTestResult } from '@postern/protocol';
import { intlLocaleFor } from '@/i18n/i18n';
import { renderError } from '@/lib/api/render-error';
import { useTestKnoc } from '../api';

/** The title, colour and icon of a finished test by what the read-back found. */
function outcomeLook(state: KnocTestReadBackState) {
  if (state === 'held') return { titleKey: 'knocsScreen.test.passed', color: 'green', Icon: IconCircleCheck } as const;
  if (state === 'absent')
    return { titleKey: 'knocsScreen.test.lost', color: 'orange', Icon: IconAlertTriangle } as const;
  return { titleKey: 'knocsScreen.test.accepted', color: 'green', Icon: IconCircleCheck } as const;
}

/** The outcome of a test the agent answered: its write, what it read back from the device, and the revoke. */
function TestResult({ result }: { result: KnocTestResult }) {
  const { t, i18n } = useTranslation();
  const time = new Intl.DateTimeFormat(intlLocaleFor(i18n.resolvedLanguage), { timeStyle: 'medium' });
  const ends = time.format(new Date(result.ExpiresAt));
  const revoke = result.Revoked
    ? t('knocsScreen.test.revoked')
    : result.RevokeError === ''
      ? t('knocsScreen.test.notRevoked', { ends })
      : t('knocsScreen.test.revokeError', { error: result.RevokeError, ends });
  const look = outcomeLook(result.ReadBack.State);
  // A revoke left unconfirmed is worth a look even when the device held the address.
  const color = look.color === 'green' && !result.Revoked ? 'yellow' : look.color;
  return (
    <Alert
      color={color}
      variant="light"
      role="status"
      icon={<look.Icon aria-hidden />}
      title={t(look.titleKey, { ip: result.IP })}
    >
      <Stack gap={4}>
        <Text size="sm" fw={600}>
          {t('knocsScreen.test.readBack')}
        </Text>
        <Text size="sm">
          {t(`knocsScreen.test.${result.ReadBack.State}`, {
            agent: result.ReadBack.AgentName,
            ip: result.IP,
            when: time.format(new Date(result.ReadBack.ReportedAt)),
            detail: result.ReadBack.Detail,
          })}
        </Text>
        <Text size="sm">{revoke}</Text>
      </Stack>
    </Alert>
  );
}

/**
 * "Test this knoc" in the detail dialog: an address (empty: the admin's own, as the server sees it),
 * one button that grants it for a minute, waits for the agent's report and revokes it, and the
 * outcome. Knocs no agent enforces (allowlists) have nothing to test and say so.
 */
export function KnocTestPanel({ knoc }: { knoc: KnocRecord }) {
  const { t } = useTranslation();
  const [address, setAddress] = useState('');
  const test = useTestKnoc(knoc.ID);
  const testable = knoc.AgentID !== NO_AGENT_ID && knoc.BackendType !== 'allowlist';

  return (
    <Stack gap="sm" component="section" aria-labelledby={`knoc-test-${knoc.ID}`}>
      <Title order={3} size="h5" id={`knoc-test-${knoc.ID}`}>
        {t('knocsScreen.test.title')}
      </Title>
      {!testable ? (
        <Text size="sm" c="dimmed">
          {t('knocsScreen.test.noDevice')}
        </Text>
      ) : (
        <>
          <Text size="sm">{t('knocsScreen.test.intro')}</Text>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              test.mutate(address.trim());
            }}
          >
            <Group align="flex-end" wrap="wrap">
              <TextInput
                label={t('knocsScreen.test.address')}
                description={t('knocsScreen.test.addressHint')}
                placeholder={t('knocsScreen.test.addressPlaceholder')}
                value={address}
                onChange={(event) => setAddress(event.currentTarget.value)}
                disabled={test.isPending}
                maxLength={64}
                style={{ flex: 1, minWidth: 200 }}
              />
              <Button type="submit" loading={test.isPending} leftSection={<IconPlayerPlay size={16} aria-hidden />}>
                {t('knocsScreen.test.run')}
              </Button>
            </Group>
          </form>
          {test.isPending ? (
            <Group gap="xs" role="status">
              <Loader size="xs" aria-hidden />
              <Text size="sm">{t('knocsScreen.test.running')}</Text>
            </Group>
          ) : null}
          {test.isSuccess ? <TestResult result={test.data} /> : null}
          {test.isError ? (
            <Alert
              color="red"
              variant="light"
              role="alert"
              icon={<IconAlertCircle aria-hidden />}
              title={t('knocsScreen.test.failed')}
            >
              {renderError(test.error, t)}
            </Alert>
          ) : null}
        </>
      )}
    </Stack>
  );
}
