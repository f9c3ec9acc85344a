import type { ReactNode } from 'react';
import { Button, FileButton, Group } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';

/** Props of {@link FilePickButtons}. Texts are already translated. */
export interface FilePickButtonsProps {
  /** What the picker offers, e.g. ".xml,text/xml". */
  accept: string;
  /** Called with the chosen file (not when the picker is dismissed). */
  onFile: (file: File) => void;
  onRemove: () => void;
  /** Nothing to remove: the Remove button is disabled. */
  removeDisabled: boolean;
  chooseText: string;
  /** The file input's accessible name, naming the field ("Choose a file for Dark-mode logo"). */
  chooseLabel: string;
  chooseIcon: ReactNode;
  removeText: string;
  /** The Remove button's accessible name, naming the field. */
  removeLabel: string;
}

/** A settings file field's pair of buttons: choose a file, and remove the one there is. */
export function FilePickButtons({
  accept,
  onFile,
  onRemove,
  removeDisabled,
  chooseText,
  chooseLabel,
  chooseIcon,
  removeText,
  removeLabel,
}: FilePickButtonsProps) {
  return (
    <Group gap="xs" justify="center">
      <FileButton
        accept={accept}
        onChange={(file) => {
          if (file !== null) onFile(file);
        }}
        inputProps={{ 'aria-label': chooseLabel }}
      >
        {(props) => (
          <Button {...props} size="xs" variant="light" leftSection={chooseIcon}>
            {chooseText}
          </Button>
        )}
      </FileButton>
      <Button
        size="xs"
        variant="subtle"
        color="red"
        leftSection={<IconTrash size={14} aria-hidden />}
        disabled={removeDisabled}
        aria-label={removeLabel}
        onClick={onRemove}
      >
        {removeText}
      </Button>
    </Group>
  );
}
