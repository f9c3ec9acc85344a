import { Group } from '@mantine/core';
import { IconEdit, IconTrash } from '@tabler/icons-react';
import { RowAction } from './RowAction';

/** Props of {@link EditDeleteActions}: the two labels name the row and are already translated. */
export interface EditDeleteActionsProps {
  editLabel: string;
  deleteLabel: string;
  onEdit: () => void;
  onDelete: () => void;
}

/** A table row's Edit and Delete icon buttons. */
export function EditDeleteActions({ editLabel, deleteLabel, onEdit, onDelete }: EditDeleteActionsProps) {
  return (
    <Group gap={4} wrap="nowrap">
      <RowAction label={editLabel} icon={<IconEdit size={18} aria-hidden />} onClick={onEdit} />
      <RowAction label={deleteLabel} icon={<IconTrash size={18} aria-hidden />} onClick={onDelete} color="red" />
    </Group>
  );
}
