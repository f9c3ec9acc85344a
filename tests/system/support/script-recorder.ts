import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A scripts directory for a real agent (POSTERN_AGENT_SCRIPTS_DIR) holding one script that records
 * each run to a file (its argv, then its whole environment) and adds or removes the address in an
 * ipset, so a script knoc's grant is visible both in what the script was given and in the kernel.
 */

/** What one run of the recording script was given. */
export interface ScriptRun {
  args: string[];
  env: Map<string, string>;
}

export interface ScriptRecorder {
  /** The scripts directory to give the agent: mode 755, owned by the test's user (root). */
  directory: string;
  /** The script's file name, the knoc's Command. */
  command: string;
  /** The run for `action` (add or remove) and `address`, or null while it has not happened. */
  run(action: 'add' | 'remove', address: string): ScriptRun | null;
}

/**
 * Writes the recording script under `root` (a fresh temporary directory): `scripts/<command>`, its
 * records in `records/`. `setName` is the ipset it changes, in the namespace the agent runs in.
 */
export function createScriptRecorder(root: string, setName: string, command = 'record-grant.sh'): ScriptRecorder {
  const directory = path.join(root, 'scripts');
  const records = path.join(root, 'records');
  mkdirSync(directory, { recursive: true });
  mkdirSync(records, { recursive: true });
  // The agent refuses a directory or script writable by group or others.
  chmodSync(directory, 0o755);
  // The record is written whole by a rename, so the test never reads half of one.
  const script = `#!/bin/sh
out="${records}/$1-$3"
{ printf 'arg=%s\\n' "$@"; env; } > "$out.part"
case "$1" in
  add) ipset -exist add ${setName} "$3" ;;
  remove) ipset -exist del ${setName} "$3" ;;
esac
mv "$out.part" "$out"
`;
  writeFileSync(path.join(directory, command), script, { mode: 0o755 });
  return {
    directory,
    command,
    run: (action, address) => {
      const file = path.join(records, `${action}-${address}`);
      if (!existsSync(file)) return null;
      const args: string[] = [];
      const env = new Map<string, string>();
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (line.startsWith('arg=')) args.push(line.slice('arg='.length));
        else if (line.includes('=')) env.set(line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1));
      }
      return { args, env };
    },
  };
}
