import { MANAGED_RULE_MAX_PORTS } from '@postern/protocol';

/*
 * The "end live connections" rule of an ipset or nftables backend (ManagedRule): absent while off.
 * While on, the form holds `{Chain, Ports}`; a port row not filled in yet is '' (NumberInput's
 * empty value), which the protocol's schema refuses as a missing number.
 */

/** The form's value of a managed rule that is switched on. */
export interface ManagedRuleValues {
  Chain: string;
  Ports: (number | string)[];
}

/** Whether a form value is a switched-on rule. */
export function isManagedRuleOn(value: unknown): value is ManagedRuleValues {
  return value !== null && typeof value === 'object' && 'Chain' in value && 'Ports' in value;
}

/** A rule just switched on: no chain yet and one port row to fill in. */
export function newManagedRule(): ManagedRuleValues {
  return { Chain: '', Ports: [''] };
}

/** Whether another port row may be added (the protocol takes at most 32 ports). */
export function canAddPort(rule: ManagedRuleValues): boolean {
  return rule.Ports.length < MANAGED_RULE_MAX_PORTS;
}
