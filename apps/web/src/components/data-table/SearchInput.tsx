import { TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/** Props of {@link SearchInput}. */
export interface SearchInputProps {
  value: string;
  onChange: (value: string) => void;
  /** The box's accessible name when the page says more than "Search" (already translated). */
  label?: string;
}

/** The search box of an admin screen's toolbar, feeding a {@link DataTable}'s `search`. */
export function SearchInput({ value, onChange, label }: SearchInputProps) {
  const { t } = useTranslation();
  return (
    <TextInput
      aria-label={label ?? t('table.search')}
      placeholder={t('table.search')}
      leftSection={<IconSearch size={16} aria-hidden />}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
    />
  );
}
