import { TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { AgentCreateBody, type AgentRecord } from '@postern/protocol';
import { FormDialog } from '@/components/dialogs/FormDialog';
import { useZodForm } from '@/lib/forms/use-zod-form';
import { nameIssueKey } from '@/lib/forms/zod-form-errors';
import { agentsApi } from '../api';

/** The form's rules: the protocol's own Name rule, so the form refuses what the server would. */
const AGENT_NAME_FORM = AgentCreateBody.pick({ Name: true });
const AGENT_NAME_ISSUE_KEY = nameIssueKey({
  required: 'agentsScreen.form.nameRequired',
  controlCharacters: 'agentsScreen.form.nameControlCharacters',
});

/** Props of {@link AgentFormDialog}. */
export interface AgentFormDialogProps {
  opened: boolean;
  /** The agent to rename; undefined creates one. */
  agent?: AgentRecord;
  onClose: () => void;
  /** Called with the new agent after a create (the page then shows its token). */
  onCreated: (agent: AgentRecord) => void;
}

/** The fields and the save; mounted only while the dialog is open, so each opening starts afresh. */
function AgentNameForm({ agent, onClose, onCreated }: Omit<AgentFormDialogProps, 'opened'>) {
  const { t } = useTranslation();
  const create = agentsApi.useCreate();
  const update = agentsApi.useUpdate();
  const form = useZodForm({
    schema: AGENT_NAME_FORM,
    initialValues: { Name: agent?.Name ?? '' },
    issueKey: AGENT_NAME_ISSUE_KEY,
  });
  const pending = create.isPending || update.isPending;

  const save = ({ Name }: { Name: string }) => {
    if (pending) return;
    form.clearFailure();
    const name = Name.trim();
    if (agent === undefined) {
      create.mutate(
        { Name: name },
        {
          onSuccess: (created) => {
            notifications.show({ color: 'green', message: t('agentsScreen.messages.agentCreated') });
            onCreated(created);
          },
          onError: form.refuse,
        },
      );
      return;
    }
    // The spec's update payload is ID, Name and Token; the server changes only the name.
    update.mutate(
      { id: agent.ID, body: { ID: agent.ID, Name: name, Token: agent.Token } },
      {
        onSuccess: () => {
          notifications.show({ color: 'green', message: t('agentsScreen.messages.agentUpdated') });
          onClose();
        },
        onError: form.refuse,
      },
    );
  };

  return (
    <FormDialog
      opened
      title={agent === undefined ? t('agentsScreen.form.createTitle') : t('agentsScreen.form.editTitle')}
      onClose={onClose}
      onSubmit={form.onSubmit(save)}
      pending={pending}
      error={form.failure}
      submitLabel={agent === undefined ? t('agentsScreen.form.submitCreate') : undefined}
    >
      <TextInput
        label={t('agentsScreen.form.name')}
        description={t('agentsScreen.form.nameDescription')}
        required
        data-autofocus
        autoComplete="off"
        {...form.getInputProps('Name')}
      />
    </FormDialog>
  );
}

/** Create or rename an agent: a name field (spec: "Create or rename: a name field"). */
export function AgentFormDialog({ opened, ...props }: AgentFormDialogProps) {
  return opened ? <AgentNameForm {...props} /> : null;
}
