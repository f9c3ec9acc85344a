import { useState } from 'react';
import { Alert, Badge, Button, Group, Paper, Stack, Text, Textarea, UnstyledButton } from '@mantine/core';
import { IconChevronRight } from '@tabler/icons-react';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import { LicenceBody, type LicenceStatus } from '@postern/protocol';
import { QueryState } from '@/components/QueryState';
import { useAdminStatus } from '@/features/status/api';
import { useLicenceStatus, useSaveLicence } from '../api';
import { licenceExpiry, licenceUsage } from '../licence-summary';
import { useSectionForm } from '../use-section-form';
import { LicenceDialog } from './LicenceDialog';
import { SectionForm } from './SectionForm';
import { SettingsSection } from './SettingsSection';

/**
 * Licence: the key field and Save when unlicensed; when licensed, a summary (version, users against
 * the limit, days to expiry) that opens the licence dialog, and the key field again on request (a
 * renewal or an upgrade replaces the key). After a licence is saved, the licence and system status
 * are fetched again and the form becomes the summary.
 */
export function LicenceSection() {
  const { t } = useTranslation();
  const licence = useLicenceStatus();
  return (
    <SettingsSection title={t('settingsScreen.licence.title')}>
      <QueryState data={licence.data} isError={licence.isError} error={licence.error}>
        {(status) => (status.Licensed ? <LicenceSummary status={status} /> : <LicenceKeyForm status={status} />)}
      </QueryState>
    </SettingsSection>
  );
}

/** The one-line summary, a button that opens the licence dialog; below it, replacing the key. */
function LicenceSummary({ status }: { status: LicenceStatus }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [replacing, setReplacing] = useState(false);
  const version = useAdminStatus().data?.ServerVersion;
  const expiry = licenceExpiry(status, new Date());
  const usage = licenceUsage(status);
  return (
    <>
      <UnstyledButton onClick={() => setOpen(true)} aria-haspopup="dialog" w="100%">
        <Paper withBorder radius="md" p="sm">
          <Group justify="space-between" wrap="nowrap" gap="sm">
            <Group gap="xs" wrap="wrap">
              {version === undefined ? null : <Text fw={600}>{t('settingsScreen.licence.version', { version })}</Text>}
              <Badge
                color={usage.state === 'within' ? 'gray' : usage.state === 'grace' ? 'orange' : 'red'}
                variant="light"
              >
                {t('settingsScreen.licence.usersOfLimit', { users: status.UserCount, limit: status.UserLimit })}
              </Badge>
              <Badge color={expiry.kind === 'expires' && !expiry.soon ? 'gray' : 'orange'} variant="light">
                {expiry.kind === 'expires'
                  ? t('settingsScreen.licence.expiresInDays', { count: expiry.days })
                  : t('settingsScreen.licence.expired')}
              </Badge>
            </Group>
            <IconChevronRight size={18} aria-hidden />
          </Group>
        </Paper>
      </UnstyledButton>
      <LicenceDialog opened={open} status={status} onClose={() => setOpen(false)} />
      <Stack gap="sm" mt="sm" align="flex-start">
        <Button variant="subtle" px={0} onClick={() => setReplacing((shown) => !shown)} aria-expanded={replacing}>
          {replacing ? t('settingsScreen.licence.keepKey') : t('settingsScreen.licence.replaceKey')}
        </Button>
        {replacing ? <LicenceKeyForm status={status} onSaved={() => setReplacing(false)} /> : null}
      </Stack>
    </>
  );
}

/** The licence key field: of an unlicensed installation, or replacing the installed key. */
function LicenceKeyForm({ status, onSaved }: { status: LicenceStatus; onSaved?: () => void }) {
  const { t } = useTranslation();
  const saveLicence = useSaveLicence();
  const section = useSectionForm<LicenceBody>({
    schema: LicenceBody,
    issueKey: (issue) => (issue.code === 'too_big' ? 'form.tooLong' : 'settingsScreen.licence.keyRequired'),
    saved: { License: '' },
    save: async ({ License }) => {
      await saveLicence.mutateAsync({ License: License.trim() });
      onSaved?.();
      return { License: '' };
    },
    successMessage: t('settingsScreen.licence.saved'),
  });
  return (
    <SectionForm section={section}>
      {status.Expired && status.Expires !== null ? (
        <Alert color="orange" variant="light">
          {t('settingsScreen.licence.expiredOn', { date: dayjs(status.Expires).format('LL') })}
        </Alert>
      ) : null}
      <Textarea
        label={t('settingsScreen.licence.key')}
        description={t('settingsScreen.licence.keyHelp')}
        // Fixed rows: a key is one long line, and autosize needs layout that tests do not have.
        rows={3}
        autoComplete="off"
        spellCheck={false}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', wordBreak: 'break-all' } }}
        {...section.form.getInputProps('License')}
      />
    </SectionForm>
  );
}
