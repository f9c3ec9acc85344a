import { Group, Input, Text } from '@mantine/core';
import { IconFileUpload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { readAsText } from '../logo-file';
import { UNCHANGED_FILE, type FilePick } from '../settings-values';
import { FilePickButtons } from './FilePickButtons';

/** The server takes at most this many characters of a SAML file (AuthenticationSettingsBody). */
export const SAML_FILE_MAX_CHARS = 1_000_000;

/** Props of {@link SamlFileField}. */
export interface SamlFileFieldProps {
  label: string;
  /** What the picker offers, e.g. ".xml,text/xml". */
  accept: string;
  /** The server holds a file for this field. */
  stored: boolean;
  pick: FilePick;
  onPick: (pick: FilePick) => void;
  error: string | null;
  onError: (error: string | null) => void;
}

/**
 * A stored SAML file (metadata, certificate or key): whether one is stored, a picker for a new one,
 * and Remove. The content travels only when the section is saved; private keys are never shown.
 */
export function SamlFileField({ label, accept, stored, pick, onPick, error, onError }: SamlFileFieldProps) {
  const { t } = useTranslation();
  const state =
    pick.content !== null
      ? t('settingsScreen.saml.fileChosen', { name: pick.fileName ?? '' })
      : pick.remove
        ? t('settingsScreen.saml.fileWillBeRemoved')
        : stored
          ? t('settingsScreen.saml.fileStored')
          : t('settingsScreen.saml.fileNone');

  const take = async (file: File) => {
    if (file.size > SAML_FILE_MAX_CHARS) {
      onError(t('settingsScreen.saml.fileTooLarge'));
      return;
    }
    try {
      onPick({ fileName: file.name, content: await readAsText(file), remove: false });
      onError(null);
    } catch {
      onError(t('settingsScreen.saml.readFailed'));
    }
  };

  const removable = pick.content !== null || (stored && !pick.remove);
  return (
    <Input.Wrapper label={label} error={error} component="div">
      <Group gap="xs" mt={4} wrap="wrap" justify="space-between">
        <Text
          size="sm"
          c={pick.remove ? 'orange' : pick.content !== null ? undefined : 'dimmed'}
          style={{ overflowWrap: 'anywhere' }}
        >
          {state}
        </Text>
        <FilePickButtons
          accept={accept}
          onFile={(file) => void take(file)}
          onRemove={() => {
            onPick({ ...UNCHANGED_FILE, remove: stored });
            onError(null);
          }}
          removeDisabled={!removable}
          chooseText={t('settingsScreen.saml.chooseFile')}
          chooseLabel={t('settingsScreen.saml.chooseFileFor', { label })}
          chooseIcon={<IconFileUpload size={14} aria-hidden />}
          removeText={t('settingsScreen.saml.remove')}
          removeLabel={t('settingsScreen.saml.removeFile', { label })}
        />
      </Group>
    </Input.Wrapper>
  );
}
