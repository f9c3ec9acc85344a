import type { BackendType } from '@postern/protocol';
import { ACL_FIELDS, aclFieldLabelKey } from '@/features/backends/acl-fields';
import {
  BACKEND_FIELDS,
  backendFieldLabelKey,
  type ConfigFieldDescriptor,
  type ConfigFieldKind,
} from '@/features/backends/backend-fields';
import { isManagedRuleOn } from '@/features/backends/managed-rule';

/** How the review shows one config value: verbatim text, a text key, or a secret (masked until asked). */
export type ReviewValue =
  | { kind: 'text'; text: string }
  | { kind: 'key'; key: string; values?: Record<string, string> }
  | { kind: 'secret'; text: string };

/** One row of the review's Settings card: the field's label key and its value. */
export interface ConfigReviewRow {
  field: string;
  labelKey: string;
  value: ReviewValue;
}

/**
 * Kinds the Settings card leaves out: fields no settings form shows (the allowlist's token and
 * access, which the server makes or the API key step asks) and the script's variables, which have
 * their own card.
 */
const SHOWN_ELSEWHERE: ReadonlySet<ConfigFieldKind> = new Set([
  'managedElsewhere',
  'envVarDeclarations',
  'envVarValues',
]);

const NONE: ReviewValue = { kind: 'key', key: 'knocWizard.review.none' };

/** The managed rule in words: "Off", or its chain and ports. */
function managedRuleValue(value: unknown): ReviewValue {
  if (!isManagedRuleOn(value)) return { kind: 'key', key: 'backendsScreen.managedRule.off' };
  const ports = value.Ports.map((port) => String(port).trim()).filter((port) => port !== '');
  return {
    kind: 'key',
    key: 'backendsScreen.managedRule.summary',
    values: { chain: value.Chain.trim(), ports: ports.join(', ') },
  };
}

/** One value in words: a tick box as Yes or No, a choice by its label, nothing typed as "None". */
function reviewValue(descriptor: ConfigFieldDescriptor, value: unknown): ReviewValue {
  if (descriptor.kind === 'managedRule') return managedRuleValue(value);
  if (typeof value === 'boolean') return { kind: 'key', key: value ? 'knocWizard.review.yes' : 'knocWizard.review.no' };
  if (value === undefined || value === null) return NONE;
  if (typeof value === 'number') return { kind: 'text', text: String(value) };
  if (Array.isArray(value)) {
    return value.length === 0 ? NONE : { kind: 'text', text: value.map((item) => String(item)).join(', ') };
  }
  if (typeof value !== 'string') return NONE;
  if (value.trim() === '') return NONE;
  if (descriptor.kind === 'secret') return { kind: 'secret', text: value };
  if (descriptor.kind === 'select') return { kind: 'key', key: `backendsScreen.options.${value}` };
  return { kind: 'text', text: value };
}

/**
 * The review's Settings rows of a type (spec §2 "Review shows settings per vendor"): the backend's
 * fields and then the knoc's, in form order, each labelled as on the settings step, with values in
 * words (never a raw `false` or `[]`). Fields another step or card shows are left out.
 */
export function configReviewRows(
  type: BackendType,
  backend: Record<string, unknown>,
  acl: Record<string, unknown>,
): ConfigReviewRow[] {
  const rows = (
    fields: Readonly<Record<string, ConfigFieldDescriptor>>,
    values: Record<string, unknown>,
    labelKey: (type: BackendType, field: string) => string,
  ) =>
    Object.entries(fields)
      .filter(([field, descriptor]) => !SHOWN_ELSEWHERE.has(descriptor.kind) && field in values)
      .map(([field, descriptor]) => ({
        field,
        labelKey: labelKey(type, field),
        value: reviewValue(descriptor, values[field]),
      }));
  return [
    ...rows(BACKEND_FIELDS[type], backend, backendFieldLabelKey),
    ...rows(ACL_FIELDS[type], acl, aclFieldLabelKey),
  ];
}
