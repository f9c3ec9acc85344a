import { Group, Radio, Stack, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ZodForm } from '@/lib/forms/use-zod-form';
import { AddRowButton, RemoveRowButton } from './RowButtons';
import type { KnocOptionsValues } from './knoc-options';

/** Who gets opened on a grant: the user's address, or a fixed list of addresses. */
export function GrantTypeFields({ form }: { form: ZodForm<KnocOptionsValues> }) {
  const { t } = useTranslation();
  const grant = form.getValues().GrantType;
  const ipsError = form.errors['GrantType.Ips'];
  return (
    <Stack gap="xs">
      <Radio.Group label={t('knocWizard.options.grantType')} {...form.getInputProps('GrantType.Type')}>
        <Group mt={4}>
          <Radio value="userIp" label={t('knocWizard.options.grantUserIp')} />
          <Radio value="specifiedIps" label={t('knocWizard.options.grantSpecifiedIps')} />
        </Group>
      </Radio.Group>
      {grant.Type === 'specifiedIps' ? (
        <Stack gap="xs">
          {grant.Ips.map((_, index) => (
            <Group key={index} align="flex-start" wrap="nowrap">
              <TextInput
                withAsterisk
                label={t('knocWizard.options.ip', { n: index + 1 })}
                {...form.getInputProps(`GrantType.Ips.${index}.Ip`)}
              />
              <RemoveRowButton
                label={t('knocWizard.options.removeIp', { n: index + 1 })}
                onClick={() => form.removeListItem('GrantType.Ips', index)}
              />
            </Group>
          ))}
          <AddRowButton
            label={t('knocWizard.options.addIp')}
            onClick={() => form.insertListItem('GrantType.Ips', { Ip: '' })}
          />
          {ipsError === undefined ? null : (
            <Text size="sm" c="red" role="alert">
              {ipsError}
            </Text>
          )}
        </Stack>
      ) : null}
    </Stack>
  );
}
