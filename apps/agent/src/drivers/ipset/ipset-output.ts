/** Reading what the `ipset` command prints: saved sets, set headers and error messages. */

/** The members of `set` in `ipset list <set> -output save` (or `ipset save`) output, as printed. */
export function parseSaveMembers(output: string, set: string): string[] {
  const members: string[] = [];
  for (const line of output.split('\n')) {
    const [command, name, member] = line.trim().split(/\s+/);
    if (command === 'add' && name === set && member !== undefined) members.push(member);
  }
  return members;
}

/**
 * The kernel timeout each member of `set` has left, in seconds, from `ipset list <set> -output save`
 * (`add <set> <member> timeout <seconds>`), by member as printed; members without one are absent.
 */
export function parseSaveTimeouts(output: string, set: string): Map<string, number> {
  const timeouts = new Map<string, number>();
  for (const line of output.split('\n')) {
    const words = line.trim().split(/\s+/);
    if (words[0] !== 'add' || words[1] !== set || words[2] === undefined) continue;
    const at = words.indexOf('timeout', 3);
    const seconds = at === -1 ? Number.NaN : Number(words[at + 1]);
    if (Number.isInteger(seconds) && seconds > 0) timeouts.set(words[2], seconds);
  }
  return timeouts;
}

/** One set as `ipset list -terse` describes it. */
export interface SetHeader {
  name: string;
  /** e.g. hash:ip, hash:net, list:set. */
  type: string;
  /** inet or inet6; null for types without a family (hash:mac, list:set). */
  family: 'inet' | 'inet6' | null;
  /** Created with `timeout`, so entries can carry one. */
  timeout: boolean;
}

/**
 * Parses `ipset list -terse` (or `-t`): blocks of `Name:`, `Type:`, `Header:` lines, one per set.
 * The header is `family inet hashsize 1024 maxelem 65536 timeout 0 …`, a list of option/value pairs.
 */
export function parseSetHeaders(output: string): SetHeader[] {
  const sets: SetHeader[] = [];
  let current: SetHeader | null = null;
  for (const line of output.split('\n')) {
    const match = /^([A-Za-z ]+):\s*(.*)$/.exec(line.trim());
    if (match === null) continue;
    const [, field, value = ''] = match;
    if (field === 'Name') {
      current = { name: value.trim(), type: '', family: null, timeout: false };
      sets.push(current);
    } else if (current !== null && field === 'Type') {
      current.type = value.trim();
    } else if (current !== null && field === 'Header') {
      const words = value.trim().split(/\s+/);
      const family = words[words.indexOf('family') + 1];
      if (words.includes('family') && (family === 'inet' || family === 'inet6')) current.family = family;
      current.timeout = words.includes('timeout');
    }
  }
  return sets;
}

/** What ipset said went wrong, and on which line of a `restore` script when it says. */
export interface IpsetError {
  /** 1-based line of the restore input that failed; null when ipset did not name one. */
  line: number | null;
  message: string;
}

/**
 * Parses ipset's stderr, e.g. `ipset v7.17: Error in line 2: The set with the given name does not
 * exist`, into the line and the message without the program prefix or the "Try `ipset help'" hint.
 */
export function parseIpsetError(stderr: string): IpsetError {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('Try `ipset help'));
  const text = lines.join(' ').replace(/^ipset v[\d.]+:\s*/, '');
  const match = /^Error in line (\d+):\s*(.*)$/.exec(text);
  if (match === null) return { line: null, message: text === '' ? 'ipset failed without a message' : text };
  return { line: Number(match[1]), message: match[2] ?? '' };
}

/**
 * Errors about the set itself rather than the entry: every other entry for that set would fail the
 * same way, so they are reported at once instead of tried one by one.
 */
export function isSetLevelError(message: string): boolean {
  return /does not exist|without timeout support/i.test(message);
}

/** Errors no entry can avoid (no permission, no sudo): nothing else is worth trying. */
export function isGlobalError(message: string): boolean {
  return /Operation not permitted|Permission denied|password is required|^sudo:|Cannot open session|Kernel support/i.test(
    message,
  );
}
