import { Checkbox, NativeSelect, NumberInput, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import {
  MAX_GRANT_MINUTES_MAX,
  MAX_GRANT_MINUTES_MIN,
  type AgentRecord,
  type BackendRecord,
  type KnocRecord,
} from '@postern/protocol';
import { FormDialog } from '@/components/dialogs/FormDialog';
import { saveCallbacks } from '@/components/dialogs/save-callbacks';
import { backendTypeLabelKey } from '@/features/backends/backend-types';
import { AclConfigFields } from '@/features/backends/components/AclConfigFields';
import { configIssueKey } from '@/features/backends/config-rules';
import { useZodForm } from '@/lib/forms/use-zod-form';
import { agentsApi } from '@/features/agents/api';
import { adminAclsApi } from '../api';
import {
  aclConfigForBackend,
  aclFormSchema,
  aclFormValues,
  toKnocCreateBody,
  toKnocUpdateBody,
  type AclFormValues,
} from '../acl-form';

/** Props of {@link AclFormDialog}; mount it per opening. */
export interface AclFormDialogProps {
  /** The knoc to edit; undefined to create one. */
  knoc?: KnocRecord;
  backends: readonly BackendRecord[];
  onClose: () => void;
}

/**
 * Create or edit an ACL (a knoc on an existing backend): Description, Backend, the backend type's
 * config, URL, Category, Icon, ClickToGrant, HideFromUsers and the longest grant in minutes.
 */
export function AclFormDialog({ knoc, backends, onClose }: AclFormDialogProps) {
  const { t } = useTranslation();
  // The agents (an ipset knoc's reported sets) are the dialog's concern, not the list's.
  const agents: readonly AgentRecord[] = agentsApi.useList().data ?? [];
  const create = adminAclsApi.useCreate();
  const update = adminAclsApi.useUpdate();
  const pending = create.isPending || update.isPending;
  const form = useZodForm<AclFormValues>({
    schema: aclFormSchema(),
    issueKey: configIssueKey,
    initialValues: aclFormValues(knoc),
  });
  const backend = backends.find((candidate) => candidate.ID === form.values.BackendID);
  const agent = agents.find((candidate) => candidate.ID === backend?.AgentID) ?? null;

  const save = (values: AclFormValues) => {
    if (pending || backend === undefined) return;
    form.clearFailure();
    const done = (key: string) => saveCallbacks(t(key, { name: values.Description.trim() }), onClose, form.refuse);
    if (knoc === undefined) create.mutate(toKnocCreateBody(values, backend.Type), done('aclsScreen.msg.aclCreated'));
    else {
      const body = toKnocUpdateBody(knoc, values, backend.Type);
      update.mutate({ id: knoc.ID, body }, done('aclsScreen.msg.aclUpdated'));
    }
  };

  const changeBackend = (id: string) => {
    const next = backends.find((candidate) => candidate.ID === id);
    form.setFieldValue('BackendID', id);
    // Another type means other fields; the same type keeps what was entered.
    if (next !== undefined && next.Type !== backend?.Type) form.setFieldValue('Config', aclConfigForBackend(next));
  };

  return (
    <FormDialog
      opened
      title={
        knoc === undefined
          ? t('aclsScreen.form.createTitle')
          : t('aclsScreen.form.editTitle', { name: knoc.Description })
      }
      onClose={onClose}
      onSubmit={form.onSubmit(save)}
      pending={pending}
      error={form.failure}
    >
      <TextInput
        label={t('aclsScreen.form.description')}
        required
        data-autofocus
        {...form.getInputProps('Description')}
      />
      <NativeSelect
        label={t('aclsScreen.form.backend')}
        required
        data={[
          { value: '', label: t('aclsScreen.form.chooseBackend'), disabled: true },
          ...backends.map((candidate) => ({
            value: candidate.ID,
            label: `${candidate.Name} (${t(backendTypeLabelKey(candidate.Type))})`,
          })),
        ]}
        {...form.getInputProps('BackendID')}
        onChange={(event) => changeBackend(event.currentTarget.value)}
      />
      {backend === undefined ? null : (
        <AclConfigFields
          type={backend.Type}
          form={form}
          path={`Config.${backend.Type}`}
          agent={agent}
          backendConfig={backend.Config[backend.Type]}
          mode={knoc === undefined ? 'create' : 'update'}
        />
      )}
      <TextInput
        label={t('aclsScreen.form.url')}
        placeholder="https://app.example.com"
        inputMode="url"
        {...form.getInputProps('URL')}
      />
      <TextInput label={t('aclsScreen.form.category')} placeholder="Default" {...form.getInputProps('Category')} />
      <TextInput label={t('aclsScreen.form.icon')} placeholder="server" {...form.getInputProps('Icon')} />
      <Checkbox
        label={t('aclsScreen.form.clickToGrant')}
        {...form.getInputProps('ClickToGrant', { type: 'checkbox' })}
      />
      <Checkbox
        label={t('aclsScreen.form.hideFromUsers')}
        {...form.getInputProps('HideFromUsers', { type: 'checkbox' })}
      />
      <NumberInput
        label={t('aclsScreen.form.maximumGrantDuration')}
        description={t('aclsScreen.form.maximumGrantDurationHelp', {
          min: MAX_GRANT_MINUTES_MIN,
          max: MAX_GRANT_MINUTES_MAX,
        })}
        min={0}
        max={MAX_GRANT_MINUTES_MAX}
        allowDecimal={false}
        allowNegative={false}
        {...form.getInputProps('MaximumGrantDuration')}
      />
    </FormDialog>
  );
}
