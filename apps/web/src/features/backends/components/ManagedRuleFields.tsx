import { ActionIcon, Button, Fieldset, Group, NumberInput, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useId } from 'react';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { MANAGED_RULE_MAX_PORTS } from '@postern/protocol';
import { setConfigValue, valueAt, type ConfigForm } from '../config-form';
import { canAddPort, isManagedRuleOn, newManagedRule } from '../managed-rule';
import { ConfigError } from './ConfigError';

/** Props of {@link ManagedRuleFields}. */
export interface ManagedRuleFieldsProps {
  form: ConfigForm;
  /** The rule's dotted path in the form (`Config.ipset.ManagedRule`). */
  path: string;
  label: string;
  /** An example chain: INPUT for iptables, input for an nftables table. */
  chainExample: string | undefined;
  /** The text key of the chain's hint (which chains the type takes). */
  chainHint: string | undefined;
}

/**
 * "End live connections" of an ipset or nftables backend: off by default (the field is absent and
 * the admin's own rules decide); switched on, a chain and one to 32 TCP ports, whose filter rule the
 * agent then owns and whose connections it ends on revoke.
 */
export function ManagedRuleFields({ form, path, label, chainExample, chainHint }: ManagedRuleFieldsProps) {
  const { t } = useTranslation();
  const helpId = useId();
  const rule = valueAt(form.getValues(), path);
  const on = isManagedRuleOn(rule);
  const portsPath = `${path}.Ports`;
  return (
    <Fieldset legend={label} variant="unstyled">
      <Stack gap="xs">
        {/* The help stays outside the switch's label, which would otherwise make it the switch's name. */}
        <Switch
          label={t('backendsScreen.managedRule.switch')}
          aria-describedby={helpId}
          checked={on}
          onChange={(event) => setConfigValue(form, path, event.currentTarget.checked ? newManagedRule() : undefined)}
        />
        <Text id={helpId} size="sm" c="dimmed">
          {t('backendsScreen.managedRule.help')}
        </Text>
        {on ? (
          <>
            <Text size="sm">{t('backendsScreen.managedRule.owned')}</Text>
            <TextInput
              label={t('backendsScreen.managedRule.chain')}
              description={chainHint === undefined ? undefined : t(chainHint)}
              placeholder={chainExample}
              required
              autoComplete="off"
              spellCheck={false}
              {...form.getInputProps(`${path}.Chain`)}
            />
            <Text size="sm" fw={500}>
              {t('backendsScreen.managedRule.ports', { max: MANAGED_RULE_MAX_PORTS })}
            </Text>
            {rule.Ports.map((_, index) => {
              const number = index + 1;
              return (
                // Ports have no id of their own; the form's paths use their position as well.
                <Group key={index} align="flex-start" gap="xs" wrap="nowrap">
                  <NumberInput
                    style={{ flex: '1 1 0', minWidth: 0 }}
                    aria-label={t('backendsScreen.managedRule.port', { number })}
                    placeholder="22"
                    min={1}
                    max={65535}
                    allowDecimal={false}
                    allowNegative={false}
                    {...form.getInputProps(`${portsPath}.${index}`)}
                  />
                  <ActionIcon
                    variant="subtle"
                    color="red"
                    size="lg"
                    mt={4}
                    aria-label={t('backendsScreen.managedRule.removePort', { number })}
                    onClick={() => form.removeListItem(portsPath, index)}
                  >
                    <IconTrash size={16} aria-hidden />
                  </ActionIcon>
                </Group>
              );
            })}
            <ConfigError error={form.errors[portsPath]} />
            <Group>
              <Button
                variant="default"
                size="xs"
                leftSection={<IconPlus size={14} aria-hidden />}
                disabled={!canAddPort(rule)}
                onClick={() => form.insertListItem(portsPath, '' as never)}
              >
                {t('backendsScreen.managedRule.addPort')}
              </Button>
            </Group>
          </>
        ) : null}
        <ConfigError error={form.errors[path]} />
      </Stack>
    </Fieldset>
  );
}
