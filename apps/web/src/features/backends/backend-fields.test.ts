import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ACL_CONFIG_SCHEMAS, BACKEND_CONFIG_SCHEMAS, BACKEND_SECRET_FIELDS, BACKEND_TYPES } from '@postern/protocol';
import { enAdmin } from '@/i18n/locales/en-admin';
import { deAdmin } from '@/i18n/locales/de-admin';
import { ACL_FIELDS, aclFieldEntries, aclFieldLabelKey } from './acl-fields';
import { BACKEND_FIELDS, backendFieldEntries, backendFieldLabelKey, type FieldsOf } from './backend-fields';

/** The text at a dotted key of a resource tree, or undefined. */
function textAt(tree: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], tree);
}

const shapeKeys = (schema: z.ZodType) => Object.keys((schema as z.ZodObject).shape).sort();

describe('config field descriptors', () => {
  it.each(BACKEND_TYPES)('describe every backend config field of %s, and no other', (type) => {
    expect(Object.keys(BACKEND_FIELDS[type]).sort()).toEqual(shapeKeys(BACKEND_CONFIG_SCHEMAS[type]));
  });

  it.each(BACKEND_TYPES)('describe every knoc config field of %s, and no other', (type) => {
    expect(Object.keys(ACL_FIELDS[type]).sort()).toEqual(shapeKeys(ACL_CONFIG_SCHEMAS[type]));
  });

  it.each(BACKEND_TYPES)('enter every secret of %s in a password input', (type) => {
    const secrets = backendFieldEntries(type).filter(([, descriptor]) => descriptor.kind === 'secret');
    expect(secrets.map(([field]) => field).sort()).toEqual([...BACKEND_SECRET_FIELDS[type]].sort());
  });

  it.each(BACKEND_TYPES)('label every field of %s in English and German', (type) => {
    const keys = [
      ...backendFieldEntries(type).map(([field]) => backendFieldLabelKey(type, field)),
      ...aclFieldEntries(type).map(([field]) => aclFieldLabelKey(type, field)),
    ];
    for (const key of keys) {
      expect(textAt(enAdmin, key), key).toEqual(expect.any(String));
      expect(textAt(deAdmin, key), key).toEqual(expect.any(String));
    }
  });

  it('label every select option', () => {
    const descriptors = BACKEND_TYPES.flatMap((type) => [...backendFieldEntries(type), ...aclFieldEntries(type)]);
    const options = descriptors.flatMap(([, descriptor]) => descriptor.options ?? []);
    expect(options.length).toBeGreaterThan(0);
    for (const option of options)
      expect(textAt(enAdmin, `backendsScreen.options.${option}`)).toEqual(expect.any(String));
  });

  it('offer allowlist knocs no admin-entered fields here (the wizard asks for access)', () => {
    expect(aclFieldEntries('allowlist')).toEqual([]);
  });

  it('make a field the protocol adds, or one it drops, a compile error', () => {
    const fortios = {
      Url: { kind: 'url' },
      Insecure: { kind: 'checkbox' },
      Bearer: { kind: 'secret' },
      Prefix: { kind: 'text' },
    } as const;
    // @ts-expect-error VDOM is missing.
    const missing: FieldsOf<typeof BACKEND_CONFIG_SCHEMAS.fortios> = fortios;
    const extra: FieldsOf<typeof BACKEND_CONFIG_SCHEMAS.fortios> = {
      ...fortios,
      VDOM: { kind: 'text' },
      // @ts-expect-error Unknown is not a field of the protocol.
      Unknown: { kind: 'text' },
    };
    expect([missing, extra]).toHaveLength(2);
  });
});
