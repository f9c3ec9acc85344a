import { useState } from 'react';
import { TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { FormArrayElement } from '@mantine/form';
import type { AllowedFromEntry } from '@postern/protocol';
import { EditableRows } from '@/components/EditableRows';
import type { ZodForm } from '@/lib/forms/use-zod-form';
import { pickNotePlaceholder } from '../api-key-form';

/**
 * The key's AllowedFrom list: one row per CIDR with the note saying why, add and remove. Every row's
 * inputs carry their number in their accessible name, since the rows look alike. Any form with an
 * AllowedFrom list uses it (the API key dialog, the knoc wizard's new key).
 */
export function AllowedFromFields<Values extends { AllowedFrom: AllowedFromEntry[] }>({
  form,
}: {
  form: ZodForm<Values>;
}) {
  const { t } = useTranslation();
  // Chosen once per dialog (spec §9: one of five placeholders at random), not on every render.
  const [placeholder] = useState(() => t(`apiKeysScreen.notePlaceholder.${pickNotePlaceholder()}`));
  // The generic form cannot see that its AllowedFrom items are entries; Values says they are.
  const empty = { Prefix: '', Note: '' } satisfies AllowedFromEntry as FormArrayElement<Values, 'AllowedFrom'>;

  return (
    <EditableRows
      legend={t('apiKeysScreen.allowedFrom.legend')}
      description={t('apiKeysScreen.allowedFrom.description')}
      count={form.values.AllowedFrom.length}
      renderRow={(index) => (
        <>
          <TextInput
            style={{ flex: '1 1 45%', minWidth: 0 }}
            aria-label={t('apiKeysScreen.allowedFrom.prefix', { number: index + 1 })}
            placeholder="192.0.2.0/24"
            autoComplete="off"
            spellCheck={false}
            {...form.getInputProps(`AllowedFrom.${index}.Prefix`)}
          />
          <TextInput
            style={{ flex: '1 1 55%', minWidth: 0 }}
            aria-label={t('apiKeysScreen.allowedFrom.note', { number: index + 1 })}
            placeholder={placeholder}
            {...form.getInputProps(`AllowedFrom.${index}.Note`)}
          />
        </>
      )}
      removeLabel={(number) => t('apiKeysScreen.allowedFrom.remove', { number })}
      onRemove={(index) => form.removeListItem('AllowedFrom', index)}
      addLabel={t('apiKeysScreen.allowedFrom.add')}
      onAdd={() => form.insertListItem('AllowedFrom', empty)}
      error={form.errors.AllowedFrom}
    />
  );
}
