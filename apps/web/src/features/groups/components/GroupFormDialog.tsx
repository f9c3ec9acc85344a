import { Alert, NativeSelect, Textarea, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { GROUP_TYPES, GroupCreateBody, type GroupRecord, type GroupType } from '@postern/protocol';
import { FormDialog } from '@/components/dialogs/FormDialog';
import { renderError } from '@/lib/api/render-error';
import { useZodForm } from '@/lib/forms/use-zod-form';
import { useKnocChoices, useUserChoices, groupsApi } from '../api';
import {
  groupFormValues,
  groupIssueKey,
  knocChoices,
  membersChosenByAdmins,
  toGroupCreateBody,
  toGroupUpdateBody,
  userChoices,
  type GroupFormValues,
} from '../group-rules';
import { MemberChecklist } from './MemberChecklist';

/** Props of {@link GroupFormDialog}. */
export interface GroupFormDialogProps {
  /** The group to edit; undefined to create one. */
  group?: GroupRecord;
  onClose: () => void;
}

/**
 * Create or edit a group: Name (unique), Description, Type (fixed on edit), the knocs it gives and,
 * for a local group, its users (SAML users listed but disabled). Mount it per opening.
 */
export function GroupFormDialog({ group, onClose }: GroupFormDialogProps) {
  const { t } = useTranslation();
  const create = groupsApi.useCreate();
  const update = groupsApi.useUpdate();
  const knocs = useKnocChoices();
  const users = useUserChoices();
  const pending = create.isPending || update.isPending;
  // The create body's rules are the update's without the ID, so one schema checks both.
  const form = useZodForm<GroupFormValues>({
    schema: GroupCreateBody,
    issueKey: groupIssueKey,
    initialValues: groupFormValues(group),
  });
  const { Type } = form.values;

  const save = (values: GroupFormValues) => {
    if (pending) return;
    form.clearFailure();
    const callbacks = {
      onSuccess: () => {
        const key = group === undefined ? 'groupsScreen.msg.groupCreated' : 'groupsScreen.msg.groupUpdated';
        notifications.show({ color: 'green', message: t(key, { name: values.Name.trim() }) });
        onClose();
      },
      // A taken name shows on Name, unknown or SAML members on their list; anything else above the form.
      onError: form.refuse,
    };
    if (group === undefined) create.mutate(toGroupCreateBody(values), callbacks);
    else update.mutate({ id: group.ID, body: toGroupUpdateBody(group, values) }, callbacks);
  };

  const changeType = (type: GroupType) => {
    form.setFieldValue('Type', type);
    // Members of SAML and dynamic groups come from assertions: none may be chosen for them.
    if (!membersChosenByAdmins(type)) form.setFieldValue('UserIDs', []);
  };

  const listFailure = knocs.error ?? users.error;
  return (
    <FormDialog
      opened
      title={
        group === undefined
          ? t('groupsScreen.form.createTitle')
          : t('groupsScreen.form.editTitle', { name: group.Name })
      }
      onClose={onClose}
      onSubmit={form.onSubmit(save)}
      pending={pending}
      error={form.failure}
    >
      <TextInput label={t('groupsScreen.form.name')} required data-autofocus {...form.getInputProps('Name')} />
      <Textarea label={t('groupsScreen.form.description')} rows={2} {...form.getInputProps('Description')} />
      <NativeSelect
        label={t('groupsScreen.form.type')}
        description={t(group === undefined ? `groupsScreen.typeHelp.${Type}` : 'err.groupTypeFixed')}
        required
        disabled={group !== undefined}
        data={GROUP_TYPES.map((value) => ({ value, label: t(`groupsScreen.types.${value}`) }))}
        {...form.getInputProps('Type')}
        onChange={(event) => changeType(event.currentTarget.value as GroupType)}
      />
      {listFailure === null ? null : (
        <Alert color="red" role="alert" title={t('groupsScreen.form.listsFailed')}>
          {renderError(listFailure, t)}
        </Alert>
      )}
      <MemberChecklist
        label={t('groupsScreen.form.knocs')}
        choices={knocChoices(knocs.data ?? [], form.values.ACLIDs)}
        emptyText={t(knocs.isPending ? 'app.loading' : 'groupsScreen.form.noKnocs')}
        value={form.values.ACLIDs}
        onChange={(ids) => form.setFieldValue('ACLIDs', ids)}
        error={form.errors.ACLIDs}
      />
      <MemberChecklist
        label={t('groupsScreen.form.users')}
        description={membersChosenByAdmins(Type) ? undefined : t('groupsScreen.form.membersFromAssertions')}
        choices={userChoices(users.data ?? [], Type)}
        emptyText={t(users.isPending ? 'app.loading' : 'groupsScreen.form.noUsers')}
        value={form.values.UserIDs}
        onChange={(ids) => form.setFieldValue('UserIDs', ids)}
        error={form.errors.UserIDs}
      />
    </FormDialog>
  );
}
