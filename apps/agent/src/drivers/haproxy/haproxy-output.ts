/** Reading HAProxy runtime API answers. */

/**
 * The patterns in the answer to `show acl #<id>`: one `<reference> <pattern>` line each, e.g.
 * `0x55d0c2a1b2c0 10.0.0.1`. Anything else is HAProxy refusing (e.g. "Unknown ACL identifier.
 * Please use #<id> or <file>."), thrown as it said it.
 */
export function parseShowAclEntries(answer: string): string[] {
  const patterns: string[] = [];
  for (const line of answer.split('\n')) {
    if (line.trim() === '') continue;
    const match = /^0x[0-9a-f]+\s+(\S+)/i.exec(line);
    if (match?.[1] === undefined) throw new Error(answer.trim());
    patterns.push(match[1]);
  }
  return patterns;
}

/** One ACL in the answer to a bare `show acl`. */
export interface AclSummary {
  /** The number `#<id>` refers to. */
  id: string;
  /** The file the patterns came from (`-f <file>`), or '' for inline patterns. */
  file: string;
  description: string;
}

/**
 * Parses a bare `show acl`: after a `# id (file) description` heading, lines like
 * `0 (/etc/haproxy/granted.acl) pattern loaded from file '…' used by acl at file '…' line 10. …`.
 */
export function parseAclList(answer: string): AclSummary[] {
  const acls: AclSummary[] = [];
  for (const line of answer.split('\n')) {
    const match = /^(\d+) \(([^)]*)\) ?(.*)$/.exec(line.trim());
    if (match === null) continue;
    acls.push({ id: match[1] ?? '', file: match[2] ?? '', description: match[3] ?? '' });
  }
  return acls;
}

/** An `add acl`/`del acl` answer: '' means done. */
export function isSuccess(answer: string): boolean {
  return answer.trim() === '';
}

/** HAProxy's answer to `del acl` for a pattern that is not there: for a removal, that is success. */
export function isNotFound(answer: string): boolean {
  return /^Key not found\.?$/i.test(answer.trim());
}

/**
 * The answer to `get acl #<id> <value>`: whether a pattern matches the value and which one, e.g.
 * `type=ip, case=sensitive, match=yes, idx=tree, pattern="10.0.0.1"` (the most specific match).
 * Anything else is HAProxy refusing, thrown as it said it.
 */
export function parseGetAcl(answer: string): { match: boolean; pattern: string | null } {
  const text = answer.trim();
  if (/(^|,\s*)match=no(,|$)/.test(text)) return { match: false, pattern: null };
  const found = /(^|,\s*)match=yes\b.*\bpattern="([^"]*)"/.exec(text);
  if (found === null) throw new Error(text);
  return { match: true, pattern: found[2] ?? '' };
}
