import { ActionIcon, Button } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';

/** The trash button at the end of a row of a list field (ranges, IPs, variables). */
export function RemoveRowButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <ActionIcon variant="subtle" color="red" mt={28} aria-label={label} onClick={onClick}>
      <IconTrash size={16} aria-hidden />
    </ActionIcon>
  );
}

/** The button below a list field that adds a row. */
export function AddRowButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <Button variant="light" w="fit-content" leftSection={<IconPlus size={16} aria-hidden />} onClick={onClick}>
      {label}
    </Button>
  );
}
