import { readFile } from 'node:fs/promises';

/** Where os-release(5) lives: /etc first, the vendor's copy under /usr/lib as the fallback. */
export const OS_RELEASE_FILES = ['/etc/os-release', '/usr/lib/os-release'];

/**
 * Parses os-release(5): `KEY=value` lines in shell syntax without expansion. Values may be unquoted,
 * single-quoted (literal) or double-quoted (with \" \\ \$ \` escapes); `#` lines are comments.
 */
export function parseOsRelease(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (match?.[1] === undefined) continue;
    const value = unquote(match[2] ?? '');
    if (value !== null) values[match[1]] = value;
  }
  return values;
}

/** The shell word `text` as a value, or null when its quotes do not close. */
function unquote(text: string): string | null {
  let value = '';
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    if (char === "'") {
      const end = text.indexOf("'", index + 1);
      if (end === -1) return null;
      value += text.slice(index + 1, end);
      index = end + 1;
    } else if (char === '"') {
      index += 1;
      let closed = false;
      while (index < text.length) {
        const inner = text[index] as string;
        if (inner === '\\' && index + 1 < text.length && '"\\$`'.includes(text[index + 1] as string)) {
          value += text[index + 1];
          index += 2;
        } else if (inner === '"') {
          closed = true;
          index += 1;
          break;
        } else {
          value += inner;
          index += 1;
        }
      }
      if (!closed) return null;
    } else if (char === '\\' && index + 1 < text.length) {
      value += text[index + 1];
      index += 2;
    } else if (/\s/.test(char)) {
      // An unquoted space ends the word; what follows is a comment or junk.
      break;
    } else {
      value += char;
      index += 1;
    }
  }
  return value;
}

/**
 * NAME and VERSION from the first os-release file that can be read. NAME defaults to "Linux" as
 * os-release(5) says; VERSION falls back to VERSION_ID (rolling releases have neither).
 */
export async function readOsRelease(
  files: readonly string[] = OS_RELEASE_FILES,
): Promise<{ NAME: string; VERSION: string }> {
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      continue;
    }
    const values = parseOsRelease(text);
    return { NAME: values.NAME ?? 'Linux', VERSION: values.VERSION ?? values.VERSION_ID ?? '' };
  }
  return { NAME: 'Linux', VERSION: '' };
}
