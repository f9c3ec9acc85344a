import { useState } from 'react';
import { ActionIcon, Button, Fieldset, Group, Stack, Text, TextInput } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { FormArrayElement } from '@mantine/form';
import type { ZodForm } from '@/lib/forms/use-zod-form';
import type { AllowedFromEntry } from '@postern/protocol';
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
  const entries = form.values.AllowedFrom;
  const listError = form.errors.AllowedFrom;

  return (
    <Fieldset legend={t('apiKeysScreen.allowedFrom.legend')} variant="unstyled">
      <Stack gap="xs">
        <Text size="sm" c="dimmed">
          {t('apiKeysScreen.allowedFrom.description')}
        </Text>
        {entries.map((_, index) => {
          const number = index + 1;
          return (
            // Rows have no id of their own; their position is what the form's paths use as well.
            <Group key={index} align="flex-start" gap="xs" wrap="nowrap">
              <TextInput
                style={{ flex: '1 1 45%', minWidth: 0 }}
                aria-label={t('apiKeysScreen.allowedFrom.prefix', { number })}
                placeholder="192.0.2.0/24"
                autoComplete="off"
                spellCheck={false}
                {...form.getInputProps(`AllowedFrom.${index}.Prefix`)}
              />
              <TextInput
                style={{ flex: '1 1 55%', minWidth: 0 }}
                aria-label={t('apiKeysScreen.allowedFrom.note', { number })}
                placeholder={placeholder}
                {...form.getInputProps(`AllowedFrom.${index}.Note`)}
              />
              <ActionIcon
                variant="subtle"
                color="red"
                size="lg"
                aria-label={t('apiKeysScreen.allowedFrom.remove', { number })}
                onClick={() => form.removeListItem('AllowedFrom', index)}
              >
                <IconTrash size={16} aria-hidden />
              </ActionIcon>
            </Group>
          );
        })}
        {typeof listError === 'string' || typeof listError === 'number' ? (
          <Text c="red" size="sm" role="alert">
            {listError}
          </Text>
        ) : null}
        <Group>
          <Button
            variant="default"
            size="xs"
            leftSection={<IconPlus size={14} aria-hidden />}
            onClick={() => {
              // The generic form cannot see that its AllowedFrom items are entries; Values says they are.
              const empty: AllowedFromEntry = { Prefix: '', Note: '' };
              form.insertListItem('AllowedFrom', empty as FormArrayElement<Values, 'AllowedFrom'>);
            }}
          >
            {t('apiKeysScreen.allowedFrom.add')}
          </Button>
        </Group>
      </Stack>
    </Fieldset>
  );
}
