import { ALL_AUDIT_ACTIONS, ALL_ERROR_CODES } from '@postern/protocol';
import { describe, expect, it } from 'vitest';
import i18n, { ADMIN_NAMESPACE, adminTexts, dayjsLocaleFor, intlLocaleFor, lazyTexts, resources } from './i18n';
import { enAdmin } from './locales/en-admin';
import { deAdmin } from './locales/de-admin';
import { ROUTES } from '../app/routes/route-table';
import { routeTitleKey } from '../app/routes/route-types';

type Tree = { [key: string]: string | Tree };

/** Every leaf key of a resource tree, dotted ("login.username"). */
function leafKeys(tree: Tree, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) =>
    typeof value === 'string' ? [`${prefix}${key}`] : leafKeys(value, `${prefix}${key}.`),
  );
}

/** The text at a dotted key, or undefined. */
function textAt(tree: Tree, key: string): string | undefined {
  let node: string | Tree | undefined = tree;
  for (const part of key.split('.')) {
    if (typeof node !== 'object') return undefined;
    node = node[part];
  }
  return typeof node === 'string' ? node : undefined;
}

/** All texts of a language: the bundled ones and the admin console's, which are loaded on demand. */
const en = { ...resources.en.translation, ...enAdmin } as unknown as Tree;
const de = { ...resources.de.translation, ...deAdmin } as unknown as Tree;

/** Source files of the app, read at build time by Vite (tests excluded: they quote texts, not keys). */
const sources = import.meta.glob<string>(['../**/*.{ts,tsx}', '!../**/*.test.{ts,tsx}', '!../i18n/locales/**'], {
  query: '?raw',
  import: 'default',
  eager: true,
});

/** Keys used literally: t('a.b') calls, and quoted strings under one of our top-level namespaces. */
function literalKeys(): Map<string, string> {
  const namespaces = Object.keys(en).join('|');
  const patterns = [/\bt\(\s*['"]([\w.]+)['"]/g, new RegExp(`['"]((?:${namespaces})\\.[\\w.]+)['"]`, 'g')];
  const found = new Map<string, string>();
  for (const [file, text] of Object.entries(sources)) {
    for (const pattern of patterns) {
      for (const match of text.matchAll(pattern)) if (match[1] !== undefined) found.set(match[1], file);
    }
  }
  return found;
}

describe('translations', () => {
  it('have the same keys in English and German', () => {
    const english = leafKeys(en).sort();
    const german = leafKeys(de).sort();
    expect(german.filter((key) => !english.includes(key))).toEqual([]);
    expect(english.filter((key) => !german.includes(key))).toEqual([]);
  });

  it('have no empty texts', () => {
    for (const tree of [en, de]) {
      expect(leafKeys(tree).filter((key) => textAt(tree, key)?.trim() === '')).toEqual([]);
    }
  });

  it('spell the noun “licence” as the specification does, in every English text', () => {
    // "licensed", "licensee" and "licensing" are the verb's forms, spelt with an s in British English too.
    const american = leafKeys(en).filter((key) => /\blicense\b/i.test(textAt(en, key) ?? ''));
    expect(american).toEqual([]);
  });

  it.each(ALL_ERROR_CODES)('translate the error code %s in both languages', (code) => {
    expect(textAt(en, code)).toBeTruthy();
    expect(textAt(de, code)).toBeTruthy();
  });

  it.each(ALL_AUDIT_ACTIONS)('translate the audit action %s in both languages', (action) => {
    expect(textAt(en, `audit.action.${action}`)).toBeTruthy();
    expect(textAt(de, `audit.action.${action}`)).toBeTruthy();
  });

  it('name every route in both languages', () => {
    for (const route of ROUTES) {
      expect(textAt(en, routeTitleKey(route.id))).toBeTruthy();
      expect(textAt(de, routeTitleKey(route.id))).toBeTruthy();
    }
  });

  it('contain every key the source code uses literally', () => {
    const used = literalKeys();
    expect(used.size).toBeGreaterThan(20);
    // A plural key is used as `key` and stored as `key_one`, `key_other` (i18next's plural forms).
    const exists = (key: string) => textAt(en, key) !== undefined || textAt(en, `${key}_other`) !== undefined;
    const missing = [...used].filter(([key]) => !exists(key)).map(([key, file]) => `${key} (${file})`);
    expect(missing).toEqual([]);
  });
});

describe('admin console texts', () => {
  it('are not bundled with the portal, and share no key with the bundled texts', () => {
    const bundled = Object.keys(resources.en.translation);
    expect(Object.keys(enAdmin).filter((key) => bundled.includes(key))).toEqual([]);
    expect(Object.keys(deAdmin).filter((key) => Object.keys(resources.de.translation).includes(key))).toEqual([]);
  });

  it.each([
    ['en', enAdmin],
    ['de', deAdmin],
  ])('are downloaded on demand in %s', async (language, texts) => {
    expect(Object.keys(adminTexts)).toEqual(['en', 'de']);
    const loaded = await new Promise((resolve, reject) => {
      lazyTexts.read(language, ADMIN_NAMESPACE, (error, data) =>
        error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(data),
      );
    });
    expect(loaded).toBe(texts);
  });

  it('are empty for languages without texts of their own, and for the bundled namespace', async () => {
    for (const [language, namespace] of [
      ['en-AU', ADMIN_NAMESPACE],
      ['de-AT', ADMIN_NAMESPACE],
      ['en-AU', 'translation'],
    ] as const) {
      const loaded = await new Promise((resolve) =>
        lazyTexts.read(language, namespace, (_error, data) => resolve(data)),
      );
      expect(loaded).toEqual({});
    }
  });

  it.each([
    ['en-AU', 'Create agent'],
    ['de', 'Agent anlegen'],
    ['de-AT', 'Agent anlegen'],
  ])('are found by their plain keys in %s (the fallback namespace)', (language, text) => {
    expect(i18n.getFixedT(language)('agentsScreen.create')).toBe(text);
  });
});

describe('language resolution', () => {
  it.each([
    ['en-AU', 'Sign in'],
    ['en-US', 'Sign in'],
    ['fr', 'Sign in'],
    ['de', 'Anmelden'],
    ['de-AT', 'Anmelden'],
  ])('shows %s visitors the right texts', (language, text) => {
    expect(i18n.getFixedT(language)('login.submit')).toBe(text);
  });

  it('falls back to en-AU, then English', () => {
    expect(i18n.options.fallbackLng).toEqual(['en-AU', 'en']);
  });

  it('matches dayjs to the language', () => {
    expect(dayjsLocaleFor('de-DE')).toBe('de');
    expect(dayjsLocaleFor('en')).toBe('en-au');
    expect(dayjsLocaleFor('fr')).toBe('en-au');
  });

  it('writes Intl dates in the chosen language, the same way as dayjs, whatever the browser’s locale', () => {
    const newYearsEve = new Date(Date.UTC(2026, 11, 31, 12));
    const long = (language: string) =>
      new Intl.DateTimeFormat(intlLocaleFor(language), { dateStyle: 'long', timeZone: 'UTC' }).format(newYearsEve);
    expect(long('en')).toBe('31 December 2026');
    expect(long('en-US')).toBe('31 December 2026');
    expect(long('de-AT')).toBe('31. Dezember 2026');
    expect(intlLocaleFor(undefined)).toBe('en-AU');
  });
});
