import { useState } from 'react';
import { Input, ScrollArea, SimpleGrid, Stack, Text, TextInput, Tooltip, UnstyledButton } from '@mantine/core';
import { TOOLTIP_DELAY_MS } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import { ACL_ICON_CHOICES, AclIcon } from '@/features/acls/components/AclIcon';

/** The spec's limit on the icon grid's height; longer lists scroll. */
export const ICON_GRID_MAX_HEIGHT_PX = 512;

/** Props of {@link IconPicker}. */
export interface IconPickerProps {
  value: string;
  onChange: (icon: string) => void;
}

/** The knoc's icon from a searchable grid of the icons the portal can show (AclIcon). */
export function IconPicker({ value, onChange }: IconPickerProps) {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const needle = search.trim().toLowerCase();
  const icons = ACL_ICON_CHOICES.filter((name) => name.includes(needle));
  return (
    <Input.Wrapper label={t('knocWizard.options.icon')}>
      <Stack gap="xs">
        <TextInput
          aria-label={t('knocWizard.options.iconSearch')}
          placeholder={t('knocWizard.options.iconSearch')}
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
        />
        <ScrollArea.Autosize mah={ICON_GRID_MAX_HEIGHT_PX} data-testid="icon-grid">
          {icons.length === 0 ? (
            <Text size="sm" c="dimmed">
              {t('knocWizard.options.noIcons')}
            </Text>
          ) : (
            <SimpleGrid cols={{ base: 4, sm: 8 }} spacing="xs" role="group" aria-label={t('knocWizard.options.icon')}>
              {icons.map((name) => (
                <Tooltip key={name} label={name} openDelay={TOOLTIP_DELAY_MS}>
                  <UnstyledButton
                    aria-label={name}
                    aria-pressed={value === name}
                    onClick={() => onChange(name)}
                    p={4}
                    style={{
                      borderRadius: 8,
                      outline: value === name ? '2px solid var(--mantine-primary-color-filled)' : undefined,
                    }}
                  >
                    <AclIcon name={name} />
                  </UnstyledButton>
                </Tooltip>
              ))}
            </SimpleGrid>
          )}
        </ScrollArea.Autosize>
      </Stack>
    </Input.Wrapper>
  );
}
