import { useState } from 'react';
import { Button, Group, Stack, Tabs } from '@mantine/core';
import type { AgentRecord, GroupRecord, KnocRecord, UserRecord } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ErrorDialog } from '@/components/dialogs/ErrorDialog';
import { configIssueKey } from '@/features/backends/config-rules';
import { CredentialDialog } from '@/features/backends/components/CredentialDialog';
import { useZodForm } from '@/lib/forms/use-zod-form';
import { useUpdateKnocWithWizard } from '../api';
import { EnvVarsSection } from '../sections/EnvVarsSection';
import { envVarsSchema } from '../sections/env-vars';
import { KnocOptionsSection } from '../sections/KnocOptionsSection';
import { descriptionIssueKey, knocOptionsSchema } from '../sections/knoc-options';
import { MembersSection } from '../sections/MembersSection';
import { SettingsSection } from '../sections/SettingsSection';
import type { SettingsValues } from '../sections/settings';
import { applicationKindOfKnoc, updateSettingsSchema } from './application-kind';
import { secretsToAskFor, toUpdateInput, updateValuesFromKnoc } from './knoc-update';
import { AllowlistAccessFields, FixedApplicationKind } from './UpdateApplicationFields';

/** Where a saved knoc leads: the knocs list, saying so. */
export const UPDATED_PATH = '/admin/knocs?didUpdate=true';

/** Props of {@link KnocUpdateForm}. */
export interface KnocUpdateFormProps {
  knoc: KnocRecord;
  /** A passive+ firewall knoc's parent (its options and members are shown), else null. */
  parent: KnocRecord | null;
  agent: AgentRecord | null;
  users: readonly UserRecord[];
  groups: readonly GroupRecord[];
}

/**
 * The update screen's tabs (spec §2): Settings, Knoc options, Variables (scripts only) and Users, the
 * wizard's own sections. Save validates every tab and opens the first one with an error; Cancel goes
 * back. A refused save shows the Error dialog and keeps what was typed.
 */
export function KnocUpdateForm({ knoc, parent, agent, users, groups }: KnocUpdateFormProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [initial] = useState(() => updateValuesFromKnoc(knoc, parent));
  const [kind] = useState(() => applicationKindOfKnoc(knoc));
  const [settingsRules] = useState(() => updateSettingsSchema(kind));
  const settings = useZodForm({
    schema: settingsRules,
    initialValues: initial.settings,
    issueKey: configIssueKey,
  });
  const options = useZodForm({
    schema: knocOptionsSchema,
    initialValues: initial.options,
    issueKey: descriptionIssueKey,
  });
  const envVars = useZodForm({ schema: envVarsSchema, initialValues: initial.envVars });
  const [members, setMembers] = useState(initial.members);
  const [tab, setTab] = useState<string | null>('settings');
  const vendorName = kind === null || kind.vendor === null ? null : t(`knocWizardApplication.vendors.${kind.vendor}`);
  // A vendor's connection and rule under their headings, as the application wizard shows them.
  const vendorLegends =
    vendorName === null
      ? undefined
      : {
          backend: t('knocWizardApplication.settings.backendLegend', { vendor: vendorName }),
          acl: t('knocWizardApplication.settings.aclLegend', { vendor: vendorName }),
        };
  /** The secrets the credential dialog asks for, null while it is closed. */
  const [asking, setAsking] = useState<string[] | null>(null);
  const update = useUpdateKnocWithWizard();
  const isScript = initial.settings.Type === 'script';

  function save() {
    const tabs = [
      ['settings', settings],
      ['options', options],
      ...(isScript ? [['envVars', envVars] as const] : []),
    ] as const;
    // Every tab is validated, so each shows its errors when opened.
    const invalid = tabs.filter(([, form]) => form.validate().hasErrors);
    if (invalid.length > 0) {
      setTab(invalid[0]?.[0] ?? 'settings');
      return;
    }
    const fields = secretsToAskFor(knoc, settings.getValues());
    if (fields.length > 0) {
      setAsking(fields);
      return;
    }
    send(settings.getValues());
  }

  function send(settingsValues: SettingsValues) {
    const values = { settings: settingsValues, options: options.getValues(), envVars: envVars.getValues(), members };
    update.mutate({ id: knoc.ID, body: toUpdateInput(knoc, values) }, { onSuccess: () => void navigate(UPDATED_PATH) });
  }

  /** The credential dialog's secrets go into the Settings form, then the save goes on with them. */
  function continueWithSecrets(secrets: Record<string, string>) {
    const next = { ...settings.getValues(), Backend: { ...settings.getValues().Backend, ...secrets } };
    settings.setValues(next);
    setAsking(null);
    send(next);
  }

  return (
    <Stack gap="md" maw={1024}>
      <Tabs value={tab} onChange={setTab} keepMounted>
        <Tabs.List>
          <Tabs.Tab value="settings">{t('knocWizard.steps.settings')}</Tabs.Tab>
          <Tabs.Tab value="options">{t('knocWizard.steps.options')}</Tabs.Tab>
          {isScript ? <Tabs.Tab value="envVars">{t('knocWizard.update.variables')}</Tabs.Tab> : null}
          <Tabs.Tab value="members">{t('knocWizard.update.users')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="settings" pt="md">
          <Stack gap="md">
            {kind === null ? null : <FixedApplicationKind kind={kind} />}
            <SettingsSection
              form={settings}
              types={[initial.settings.Type]}
              agent={agent}
              mode="update"
              legends={vendorLegends}
            />
            {initial.settings.Type === 'allowlist' ? <AllowlistAccessFields form={settings} /> : null}
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="options" pt="md">
          <KnocOptionsSection form={options} />
        </Tabs.Panel>
        {isScript ? (
          <Tabs.Panel value="envVars" pt="md">
            <EnvVarsSection form={envVars} />
          </Tabs.Panel>
        ) : null}
        <Tabs.Panel value="members" pt="md">
          <MembersSection users={users} groups={groups} value={members} onChange={setMembers} />
        </Tabs.Panel>
      </Tabs>
      <Group justify="flex-end">
        <Button variant="default" onClick={() => void navigate(-1)} disabled={update.isPending}>
          {t('knocWizard.update.cancel')}
        </Button>
        <Button onClick={save} loading={update.isPending}>
          {t('knocWizard.update.save')}
        </Button>
      </Group>
      <ErrorDialog error={update.error} onClose={() => update.reset()} />
      {asking !== null ? (
        <CredentialDialog
          type={initial.settings.Type}
          fields={asking}
          onSubmit={continueWithSecrets}
          onCancel={() => setAsking(null)}
        />
      ) : null}
    </Stack>
  );
}
