import { createHash } from 'node:crypto';
import { isSingleHost, parseIpOrCidr, type IpPrefix } from '@postern/protocol';

/** The two published representations of one allowlist. */
export type AllowlistFormat = 'txt' | 'json';

interface SortableEntry {
  text: string;
  range: IpPrefix;
}

/**
 * The published lines: each granted address or CIDR once, as it was granted except that a single
 * host loses its /32 or /128 (firewalls read `192.0.2.7` and `192.0.2.7/32` alike; people read the
 * first). IPv4 first, then IPv6, each in numeric order, narrower ranges after wider ones at the same
 * network. Anything that is not an address or CIDR is left out: one bad line can make a firewall
 * refuse the whole file.
 */
export function publishedLines(granted: readonly string[]): string[] {
  const entries = new Map<string, SortableEntry>();
  for (const text of granted) {
    const entry = toEntry(text.trim());
    if (entry === null) continue;
    // Two spellings of one range (2001:DB8::1 and 2001:db8::1) publish once, as first seen.
    const identity = `${entry.range.family}/${entry.range.value}/${entry.range.prefix}`;
    if (!entries.has(identity)) entries.set(identity, entry);
  }
  return [...entries.values()].sort(compareEntries).map((entry) => entry.text);
}

function toEntry(text: string): SortableEntry | null {
  const range = parseIpOrCidr(text);
  if (range === null) return null;
  const hostWithPrefix = isSingleHost(range) && text.includes('/');
  return { range, text: hostWithPrefix ? text.slice(0, text.lastIndexOf('/')) : text };
}

function compareEntries({ range: a }: SortableEntry, { range: b }: SortableEntry): number {
  if (a.family !== b.family) return a.family - b.family;
  if (a.value !== b.value) return a.value < b.value ? -1 : 1;
  return a.prefix - b.prefix;
}

/**
 * The .txt file: two comment lines, then one address a line. The description is an admin's free text
 * and goes into a comment, so line breaks and other control characters become spaces: a description
 * must never be able to start a line of its own and publish an address.
 */
export function allowlistText(description: string, generatedAt: number, lines: readonly string[]): string {
  const safeDescription = description.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').trim();
  const header = [`# Postern allowlist for ${safeDescription}`, `# generated ${new Date(generatedAt).toISOString()}`];
  return `${[...header, ...lines].join('\n')}\n`;
}

/**
 * A strong validator for one representation: changes when the addresses (or the description shown
 * with them) change, not with the generation time, so a firewall polling an unchanged list gets 304.
 */
export function allowlistEtag(
  format: AllowlistFormat,
  aclId: string,
  description: string,
  lines: readonly string[],
): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([format, aclId, description, lines]))
    .digest('base64url');
  return `"${hash}"`;
}
