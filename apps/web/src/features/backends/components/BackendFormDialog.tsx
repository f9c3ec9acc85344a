import { useState } from 'react';
import { Alert, NativeSelect, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ErrorCodes, type AgentRecord, type BackendRecord, type BackendType } from '@postern/protocol';
import { FormDialog } from '@/components/dialogs/FormDialog';
import { saveCallbacks } from '@/components/dialogs/save-callbacks';
import { useZodForm } from '@/lib/forms/use-zod-form';
import { agentsApi } from '@/features/agents/api';
import { backendsApi } from '../api';
import { defaultBackendConfig } from '../backend-defaults';
import {
  backendFormSchema,
  backendFormValues,
  chosenConfig,
  toBackendCreateBody,
  toBackendUpdateBody,
  type BackendFormValues,
} from '../backend-form';
import { useAdminStatus } from '@/features/status/api';
import {
  agentOptions,
  autoPickedAgentId,
  backendTypeLabelKey,
  backendTypeOptions,
  needsAgent,
  unsupportedAgentTypes,
} from '../backend-types';
import { configIssueKey } from '../config-rules';
import { secretsToReenter } from '../config-values';
import { BackendConfigFields } from './BackendConfigFields';
import { CredentialDialog } from './CredentialDialog';

/** Props of {@link BackendFormDialog}; mount it per opening. */
export interface BackendFormDialogProps {
  /** The backend to edit; undefined to create one. */
  backend?: BackendRecord;
  onClose: () => void;
}

/**
 * Create or edit a backend: Name, Type (fixed on edit; types no agent can drive disabled with the
 * reason; with enhanced-custom-script also the types agents report that this server cannot drive), Agent (none for allowlist; incapable agents disabled with theirs; the only capable one
 * picked), then the type's config. Changing a vendor's address asks for its secrets again first.
 */
export function BackendFormDialog({ backend, onClose }: BackendFormDialogProps) {
  const { t } = useTranslation();
  // Asked for by the dialog, not the page: the list itself needs no agents.
  const agentList = agentsApi.useList();
  const agents: readonly AgentRecord[] = agentList.data ?? [];
  const experimental = useAdminStatus().data?.ExperimentalFeatures ?? [];
  const unsupported = experimental.includes('enhanced-custom-script') ? unsupportedAgentTypes(agents) : [];
  const mode = backend === undefined ? 'create' : 'update';
  const create = backendsApi.useCreate();
  const update = backendsApi.useUpdate();
  const pending = create.isPending || update.isPending;
  const form = useZodForm<BackendFormValues>({
    schema: backendFormSchema(mode),
    issueKey: configIssueKey,
    initialValues: backendFormValues(backend),
  });
  const [asking, setAsking] = useState<string[] | null>(null);
  const { Type: type, AgentID } = form.values;
  const options = type === '' ? [] : agentOptions(agents, type);
  const agent = agents.find((candidate) => candidate.ID === AgentID) ?? null;
  const chosen = options.find((option) => option.agent.ID === AgentID);

  const submit = (values: BackendFormValues) => {
    if (pending || values.Type === '') return;
    form.clearFailure();
    const done = (key: string) => saveCallbacks(t(key, { name: values.Name.trim() }), onClose, form.refuse);
    if (backend === undefined) {
      create.mutate(toBackendCreateBody(values, values.Type), done('backendsScreen.msg.backendCreated'));
    } else {
      const body = toBackendUpdateBody(backend, values);
      update.mutate({ id: backend.ID, body }, done('backendsScreen.msg.backendUpdated'));
    }
  };

  const save = (values: BackendFormValues) => {
    if (backend !== undefined) {
      const fields = secretsToReenter(
        backend.Type,
        backend.Config[backend.Type] ?? {},
        chosenConfig(values, backend.Type),
      );
      if (fields.length > 0) return setAsking(fields);
    }
    submit(values);
  };

  const continueWithSecrets = (secrets: Record<string, string>) => {
    if (backend === undefined) return;
    const config = { ...chosenConfig(form.getValues(), backend.Type), ...secrets };
    form.setFieldValue(`Config.${backend.Type}`, config);
    setAsking(null);
    submit({ ...form.getValues(), Config: { [backend.Type]: config } });
  };

  const changeType = (next: BackendType) => {
    const nextOptions = agentOptions(agents, next);
    const keep = nextOptions.some((option) => option.agent.ID === AgentID && !option.disabled);
    const agentId = needsAgent(next) ? (keep ? AgentID : (autoPickedAgentId(nextOptions) ?? '')) : '';
    const nextAgent = agents.find((candidate) => candidate.ID === agentId);
    form.setValues({
      Type: next,
      AgentID: agentId,
      Config: { [next]: defaultBackendConfig(next, { agentSocket: nextAgent?.Capabilities?.haproxy.socket_location }) },
    });
  };

  const reasonSuffix = (reason: string | null) => (reason === null ? '' : ` (${t(reason)})`);
  return (
    <FormDialog
      opened
      title={
        backend === undefined
          ? t('backendsScreen.form.createTitle')
          : t('backendsScreen.form.editTitle', { name: backend.Name })
      }
      onClose={onClose}
      onSubmit={form.onSubmit(save)}
      pending={pending}
      error={form.failure}
    >
      <TextInput label={t('backendsScreen.form.name')} required data-autofocus {...form.getInputProps('Name')} />
      <NativeSelect
        label={t('backendsScreen.form.type')}
        description={backend === undefined ? undefined : t(ErrorCodes.backendTypeFixed)}
        required
        disabled={backend !== undefined || agentList.isPending}
        data={[
          { value: '', label: t('backendsScreen.form.chooseType'), disabled: true },
          ...backendTypeOptions(agents).map((option) => ({
            value: option.type,
            label: `${t(backendTypeLabelKey(option.type))}${reasonSuffix(option.reason)}`,
            disabled: option.disabled && option.type !== backend?.Type,
          })),
          // The value can never be a BackendType (those are lower-case words), so it is never saved.
          ...unsupported.map((option) => ({
            value: `unsupported:${option.type}`,
            label: `${option.type}${reasonSuffix(option.reason)}`,
            disabled: true,
          })),
        ]}
        {...form.getInputProps('Type')}
        onChange={(event) => changeType(event.currentTarget.value as BackendType)}
      />
      {type !== '' && needsAgent(type) ? (
        <NativeSelect
          label={t('backendsScreen.form.agent')}
          required
          data={[
            { value: '', label: t('backendsScreen.form.chooseAgent'), disabled: true },
            ...options.map((option) => ({
              value: option.agent.ID,
              label: `${option.agent.Name}${reasonSuffix(option.reason)}`,
              disabled: option.disabled && option.agent.ID !== backend?.AgentID,
            })),
          ]}
          {...form.getInputProps('AgentID')}
        />
      ) : null}
      {chosen?.versionWarning === true ? (
        <Alert color="yellow" role="status">
          {t(ErrorCodes.agentVersionTooOld)}
        </Alert>
      ) : null}
      {type === '' ? null : (
        <BackendConfigFields type={type} form={form} path={`Config.${type}`} mode={mode} agent={agent} />
      )}
      {asking !== null && backend !== undefined ? (
        <CredentialDialog
          type={backend.Type}
          fields={asking}
          onSubmit={continueWithSecrets}
          onCancel={() => setAsking(null)}
        />
      ) : null}
    </FormDialog>
  );
}
