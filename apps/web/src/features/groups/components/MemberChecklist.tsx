import { useState, type ReactNode } from 'react';
import { Checkbox, ScrollArea, Stack, Text, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { Choice } from '../group-rules';

/** Props of {@link MemberChecklist}. */
export interface MemberChecklistProps {
  /** The group's label, already translated ("Knocs", "Users"). */
  label: string;
  description?: string;
  choices: readonly Choice[];
  value: string[];
  onChange: (value: string[]) => void;
  error?: ReactNode;
  /** Shown when there is nothing to choose from. */
  emptyText: string;
}

/**
 * A checklist of knocs or users with a filter box; ticked entries the filter hides stay ticked (the
 * group's change handler keeps every value it was not asked to toggle).
 * A disabled entry may say why under its name.
 */
export function MemberChecklist({
  label,
  description,
  choices,
  value,
  onChange,
  error,
  emptyText,
}: MemberChecklistProps) {
  const { t } = useTranslation();
  const [filter, setFilter] = useState('');
  const needle = filter.trim().toLocaleLowerCase();
  const shown = needle === '' ? choices : choices.filter((choice) => choice.label.toLocaleLowerCase().includes(needle));

  return (
    <Checkbox.Group label={label} description={description} error={error} value={value} onChange={onChange}>
      <Stack gap="xs" mt="xs">
        <TextInput
          size="xs"
          aria-label={t('groupsScreen.form.filter', { list: label })}
          placeholder={t('groupsScreen.form.filter', { list: label })}
          leftSection={<IconSearch size={14} aria-hidden />}
          value={filter}
          onChange={(event) => setFilter(event.currentTarget.value)}
        />
        <ScrollArea.Autosize mah={220} type="auto" offsetScrollbars>
          <Stack gap={6}>
            {choices.length === 0 ? (
              <Text size="sm" c="dimmed">
                {emptyText}
              </Text>
            ) : null}
            {shown.map((choice) => (
              <Checkbox
                key={choice.value}
                value={choice.value}
                label={choice.label}
                description={choice.note === null ? undefined : t(choice.note)}
                disabled={choice.disabled}
              />
            ))}
          </Stack>
        </ScrollArea.Autosize>
      </Stack>
    </Checkbox.Group>
  );
}
