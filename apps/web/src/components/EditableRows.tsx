import type { ReactNode } from 'react';
import { ActionIcon, Button, Fieldset, Group, Stack, Text } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';

/** Props of {@link EditableRows}. Texts are already translated. */
export interface EditableRowsProps {
  legend: string;
  description?: ReactNode;
  /** How many rows there are. */
  count: number;
  /** The inputs of the row at `index`; they name themselves with the row's number. */
  renderRow: (index: number) => ReactNode;
  /** The remove button's accessible name for row `number` (1-based). */
  removeLabel: (number: number) => string;
  onRemove: (index: number) => void;
  addLabel: string;
  onAdd: () => void;
  /** An error of the list as a whole ("add at least one"). */
  error?: ReactNode;
}

/**
 * A list of alike rows in a fieldset: each row's inputs and a remove button, an error of the list,
 * and an add button (allowed-from entries, address ranges).
 */
export function EditableRows({
  legend,
  description,
  count,
  renderRow,
  removeLabel,
  onRemove,
  addLabel,
  onAdd,
  error,
}: EditableRowsProps) {
  return (
    <Fieldset legend={legend} variant="unstyled">
      <Stack gap="xs">
        {description === undefined ? null : (
          <Text size="sm" c="dimmed">
            {description}
          </Text>
        )}
        {Array.from({ length: count }, (_, index) => (
          // Rows have no id of their own; their position is what the form's paths use as well.
          <Group key={index} align="flex-start" gap="xs" wrap="nowrap">
            {renderRow(index)}
            <ActionIcon
              variant="subtle"
              color="red"
              size="lg"
              aria-label={removeLabel(index + 1)}
              onClick={() => onRemove(index)}
            >
              <IconTrash size={16} aria-hidden />
            </ActionIcon>
          </Group>
        ))}
        {typeof error === 'string' || typeof error === 'number' ? (
          <Text c="red" size="sm" role="alert">
            {error}
          </Text>
        ) : null}
        <Group>
          <Button variant="default" size="xs" leftSection={<IconPlus size={14} aria-hidden />} onClick={onAdd}>
            {addLabel}
          </Button>
        </Group>
      </Stack>
    </Fieldset>
  );
}
