import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';

/**
 * What no screen may show, in any language: a text key where its translation belongs
 * (`backendsScreen.aclFields.allowlist.Token`), a value put on screen as the program holds it
 * (`false`, `[]`, `null`, `[object Object]`), or a placeholder left unfilled (`{{name}}`).
 */

const LOCALES = path.resolve(import.meta.dirname, '../../../apps/web/src/i18n/locales');

/**
 * The locale files' top-level keys, the first segment of every text key the app looks up, read from
 * the English sources (the web app's modules are not part of this project's compilation): each
 * entry of en.ts and en-admin.ts is an area file's object spread in (`...portal`, whose own
 * top-level keys count) or one kept whole under its name (`err`, `audit`).
 */
function keyNamespaces(): string[] {
  const namespaces: string[] = [];
  for (const bundle of ['en.ts', 'en-admin.ts']) {
    const source = readFileSync(path.join(LOCALES, bundle), 'utf8');
    const files = new Map(
      [...source.matchAll(/^import \{ (\w+) \} from '\.\/(en\/[\w-]+)';$/gm)].map(([, name, file]) => [name, file]),
    );
    for (const [, spread, name] of source.matchAll(/^ {2}(\.\.\.)?(\w+),$/gm)) {
      const file = name === undefined ? undefined : files.get(name);
      if (spread === undefined || file === undefined) {
        if (name !== undefined) namespaces.push(name);
        continue;
      }
      const area = readFileSync(path.join(LOCALES, `${file}.ts`), 'utf8');
      namespaces.push(...[...area.matchAll(/^ {2}(\w+): \{$/gm)].map(([, key]) => key ?? ''));
    }
  }
  if (namespaces.length < 10) throw new Error(`found only ${namespaces.length} text key namespaces in ${LOCALES}`);
  return namespaces;
}

const KEY_NAMESPACES = keyNamespaces();

/** Values as code writes them, shown as a whole text. */
const RAW_VALUE_SOURCE = String.raw`^(true|false|null|undefined|NaN|\[\]|\{\}|\[object Object\])$`;

/**
 * A key: a namespace, then at least one `.segment` of letters and digits; not part of an address
 * (`home.example.org/`, `user@login.example`) or of a longer dotted name.
 */
const RAW_KEY_SOURCE = String.raw`(?<![\w@/.:-])(?:${KEY_NAMESPACES.join('|')})(?:\.[A-Za-z][A-Za-z0-9_]*)+(?![\w/:-]|\.\w)`;

/** The browser globals the scan reads (the root project compiles without DOM types). */
interface ScannedNode {
  nodeValue: string | null;
  parentElement: ScannedElement | null;
}
interface ScannedElement {
  checkVisibility(options?: object): boolean;
  getAttribute(name: string): string | null;
  tagName: string;
}
interface ScanDocument {
  body: unknown;
  createTreeWalker(root: unknown, whatToShow: number): { nextNode(): ScannedNode | null };
  querySelectorAll(selector: string): ArrayLike<ScannedElement>;
}

/**
 * The raw keys and values the page shows now, each as one line saying what and where: the visible
 * text, and the labels, titles and placeholders a screen reader or a field shows. Empty when clean.
 */
export function rawTextOnPage(page: Page): Promise<string[]> {
  return page.evaluate(
    ({ keySource, valueSource }) => {
      const { document } = globalThis as unknown as { document: ScanDocument };
      const rawKey = new RegExp(keySource, 'g');
      const rawValue = new RegExp(valueSource);
      const hostEndings = /\.(com|org|net|io|de|test|example|local|localhost|internal|lan)$/;
      const found: string[] = [];
      const check = (text: string, where: string) => {
        const trimmed = text.trim();
        if (trimmed === '') return;
        if (rawValue.test(trimmed)) found.push(`raw value "${trimmed}" ${where}`);
        for (const [key] of trimmed.matchAll(rawKey)) {
          // A host name that happens to start like a namespace (home.example.org) is not a key.
          if (!hostEndings.test(key)) found.push(`raw text key "${key}" ${where}`);
        }
        if (/\{\{\s*\w+\s*\}\}/.test(trimmed)) found.push(`unfilled placeholder in "${trimmed}" ${where}`);
        if (trimmed.includes('[object Object]') && trimmed !== '[object Object]') {
          found.push(`raw value in "${trimmed}" ${where}`);
        }
      };
      // NodeFilter.SHOW_TEXT
      const walker = document.createTreeWalker(document.body, 4);
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        const parent = node.parentElement;
        if (parent === null || ['SCRIPT', 'STYLE', 'NOSCRIPT'].includes(parent.tagName)) continue;
        if (!parent.checkVisibility({ visibilityProperty: true, opacityProperty: false })) continue;
        check(node.nodeValue ?? '', `in a <${parent.tagName.toLowerCase()}>`);
      }
      for (const element of Array.from(document.querySelectorAll('[aria-label], [title], [placeholder], img[alt]'))) {
        if (!element.checkVisibility()) continue;
        for (const attribute of ['aria-label', 'title', 'placeholder', 'alt']) {
          const value = element.getAttribute(attribute);
          if (value !== null) check(value, `in the ${attribute} of a <${element.tagName.toLowerCase()}>`);
        }
      }
      return found;
    },
    { keySource: RAW_KEY_SOURCE, valueSource: RAW_VALUE_SOURCE },
  );
}
