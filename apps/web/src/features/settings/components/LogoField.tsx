import { useState, type DragEvent } from 'react';
import { Box, Group, Image, Input, Paper, Stack, Text } from '@mantine/core';
import { IconPhoto, IconUpload } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { translateErrorKey } from '@/lib/api/render-error';
import { LOGO_ACCEPT, logoFileProblem, logoMimeType, readAsDataUrl } from '../logo-file';
import { FilePickButtons } from './FilePickButtons';

/** Props of {@link LogoField}. */
export interface LogoFieldProps {
  /** The field's label, already translated ("Dark-mode logo"). */
  label: string;
  /** The logo as a data: URL, or '' for none. */
  value: string;
  onChange: (value: string) => void;
  /** The field's error, already translated; null for none. */
  error: string | null;
  onError: (error: string | null) => void;
  /** The background the logo will be seen on, so the preview shows it as users will. */
  scheme: 'dark' | 'light';
}

/**
 * A logo upload: a preview, a drop zone (drag a file onto it) and a file picker, both taking PNG or
 * JPEG only, and a Remove button. Nothing is sent until the section is saved.
 */
export function LogoField({ label, value, onChange, error, onError, scheme }: LogoFieldProps) {
  const { t } = useTranslation();
  const [dragging, setDragging] = useState(false);

  const take = async (file: File | undefined) => {
    if (file === undefined) return;
    const problem = logoFileProblem(file);
    if (problem !== null) {
      onError(translateErrorKey(problem, t));
      return;
    }
    try {
      onChange(await readAsDataUrl(file, logoMimeType(file) ?? 'image/png'));
      onError(null);
    } catch {
      onError(t('settingsScreen.branding.readFailed'));
    }
  };

  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    void take(event.dataTransfer.files[0]);
  };

  return (
    <Input.Wrapper label={label} error={error} component="div">
      <Paper
        role="group"
        aria-label={label}
        withBorder
        p="sm"
        mt={4}
        radius="md"
        style={{
          borderStyle: 'dashed',
          borderColor: dragging
            ? 'var(--mantine-primary-color-filled)'
            : error
              ? 'var(--mantine-color-error)'
              : undefined,
        }}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <Stack gap="xs" align="center">
          <Box
            w="100%"
            h={72}
            p="xs"
            bg={scheme === 'dark' ? 'dark.7' : 'gray.0'}
            style={{ borderRadius: 'var(--mantine-radius-sm)', display: 'flex', justifyContent: 'center' }}
          >
            {value === '' ? (
              <Group gap={6} c={scheme === 'dark' ? 'gray.4' : 'gray.7'}>
                <IconPhoto size={20} aria-hidden />
                <Text size="sm">{t('settingsScreen.branding.noLogo')}</Text>
              </Group>
            ) : (
              <Image
                src={value}
                alt={t('settingsScreen.branding.preview', { label })}
                h="100%"
                w="auto"
                fit="contain"
              />
            )}
          </Box>
          <Text size="xs" c="dimmed" ta="center">
            {t('settingsScreen.branding.dropHint')}
          </Text>
          <FilePickButtons
            accept={LOGO_ACCEPT}
            onFile={(file) => void take(file)}
            onRemove={() => {
              onChange('');
              onError(null);
            }}
            removeDisabled={value === ''}
            chooseText={t('settingsScreen.branding.chooseFile')}
            chooseLabel={t('settingsScreen.branding.chooseFileFor', { label })}
            chooseIcon={<IconUpload size={14} aria-hidden />}
            removeText={t('settingsScreen.branding.remove')}
            removeLabel={t('settingsScreen.branding.removeLogo', { label })}
          />
        </Stack>
      </Paper>
    </Input.Wrapper>
  );
}
