import type { ReactNode } from 'react';
import { TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { EditableRows } from '@/components/EditableRows';

/** Props of {@link AddressRangeRows}. */
export interface AddressRangeRowsProps {
  count: number;
  /** The form's input props of the range at `index`. */
  inputProps: (index: number) => object;
  onRemove: (index: number) => void;
  onAdd: () => void;
  description?: ReactNode;
  error?: ReactNode;
}

/** The address ranges (CIDRs) that may read an allowlist without a key: the wizard's and the update screen's. */
export function AddressRangeRows({ count, inputProps, onRemove, onAdd, description, error }: AddressRangeRowsProps) {
  const { t } = useTranslation();
  return (
    <EditableRows
      legend={t('knocWizardApplication.apiKey.restriction.legend')}
      description={description}
      count={count}
      renderRow={(index) => (
        <TextInput
          style={{ flex: 1 }}
          aria-label={t('knocWizardApplication.apiKey.restriction.range', { number: index + 1 })}
          placeholder="192.0.2.0/24"
          autoComplete="off"
          spellCheck={false}
          {...inputProps(index)}
        />
      )}
      removeLabel={(number) => t('knocWizardApplication.apiKey.restriction.remove', { number })}
      onRemove={onRemove}
      addLabel={t('knocWizardApplication.apiKey.restriction.add')}
      onAdd={onAdd}
      error={error}
    />
  );
}
