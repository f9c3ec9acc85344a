import type { ReactNode } from 'react';
import { Button, Group, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ErrorDialog } from '@/components/dialogs/ErrorDialog';
import { useReportUnsaved } from '../unsaved-changes';
import type { SectionFormState } from '../use-section-form';

/** Props of {@link SectionForm}. */
export interface SectionFormProps<V extends object> {
  section: SectionFormState<V>;
  children: ReactNode;
}

/**
 * A settings section's form: its fields, then Cancel and Save, both enabled only when something
 * changed (spec §2 Settings), and the "Error" dialog for a refusal that names no field. Its unsaved
 * edits are reported to the Settings screen, which marks the tab holding them.
 */
export function SectionForm<V extends object>({ section, children }: SectionFormProps<V>) {
  const { t } = useTranslation();
  const { dirty, pending, cancel, onSubmit, failure, clearFailure } = section;
  useReportUnsaved(dirty);
  return (
    <form noValidate onSubmit={onSubmit}>
      <Stack gap="md">
        {children}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={cancel} disabled={!dirty || pending}>
            {t('dialog.cancel')}
          </Button>
          <Button type="submit" disabled={!dirty} loading={pending}>
            {t('dialog.save')}
          </Button>
        </Group>
      </Stack>
      <ErrorDialog error={failure} onClose={clearFailure} />
    </form>
  );
}
