import { ActionIcon, Button, Group, Radio, Stack, Text, TextInput } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { ZodForm } from '@/lib/forms/use-zod-form';
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
              <ActionIcon
                variant="subtle"
                color="red"
                mt={28}
                aria-label={t('knocWizard.options.removeIp', { n: index + 1 })}
                onClick={() => form.removeListItem('GrantType.Ips', index)}
              >
                <IconTrash size={16} aria-hidden />
              </ActionIcon>
            </Group>
          ))}
          <Button
            variant="light"
            w="fit-content"
            leftSection={<IconPlus size={16} aria-hidden />}
            onClick={() => form.insertListItem('GrantType.Ips', { Ip: '' })}
          >
            {t('knocWizard.options.addIp')}
          </Button>
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
