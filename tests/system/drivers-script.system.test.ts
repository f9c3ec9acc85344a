import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AgentKnocOf } from '@postern/protocol';
import { waitFor } from '@postern/test-support';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DriverEntry } from '../../apps/agent/src/drivers/index.js';
import { SCRIPT_ERROR_MAX_BYTES, ScriptDriver } from '../../apps/agent/src/drivers/script/script-driver.js';
import { systemCommand } from './support/netns.js';
import { requireTool } from './support/requirements.js';

/**
 * The script driver running real programs from a scripts directory this file creates: a recorder
 * that writes its argv and environment to a file per run, and scripts that fail, hang and escape.
 */
const missing = systemCommand('sh') === null ? 'sh' : null;

let root: string;
let scripts: string;
let records: string;
const silent = pino({ level: 'silent' });

const SCRIPTS: Record<string, string> = {
  // One file per run, named after the address, holding argv then the environment (NUL-separated by env -0).
  'record.sh': `#!/bin/sh
out="$RECORD_DIR/$1-$3"
printf '%s\\n' "$@" > "$out.argv"
env -0 > "$out.env"
`,
  'fail.sh': `#!/bin/sh
echo "this goes to stdout and nowhere else"
echo "  firewall refused $3 (token $API_KEY)  " >&2
exit 3
`,
  'hang.sh': `#!/bin/sh
sleep 60 &
echo $! > "$RECORD_DIR/child.pid"
wait
`,
  'chatty.sh': `#!/bin/sh
head -c 10000 /dev/zero | tr '\\0' 'x' >&2
echo "the end" >&2
exit 1
`,
};

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'postern-scripts-')));
  scripts = path.join(root, 'scripts');
  records = path.join(root, 'records');
  await mkdir(scripts, { mode: 0o755 });
  await mkdir(records);
  for (const [name, content] of Object.entries(SCRIPTS)) {
    await writeFile(path.join(scripts, name), content, { mode: 0o755 });
  }
  await writeFile(path.join(root, 'outside.sh'), SCRIPTS['record.sh'] ?? '', { mode: 0o755 });
  await symlink(path.join(root, 'outside.sh'), path.join(scripts, 'escape.sh'));
});
afterAll(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});
beforeEach(async (context) => {
  requireTool(context, missing);
  for (const file of await readdir(records)) await rm(path.join(records, file));
});

function driver(options: { enabled?: boolean; timeoutSeconds?: number } = {}): ScriptDriver {
  return new ScriptDriver({
    enabled: options.enabled ?? true,
    directory: scripts,
    timeoutSeconds: options.timeoutSeconds ?? 10,
    logger: silent,
  });
}

function knoc(command: string, acl: { Name?: string; secret?: string } = {}): AgentKnocOf<'script'> {
  return {
    aclId: 'acl-script',
    name: 'Lab firewall',
    url: '',
    backendId: 'backend-script',
    backendType: 'script',
    backend: { Command: command, EnvVars: [{ Name: 'RECORD_DIR' }, { Name: 'API_KEY', Sensitive: true }] },
    acl: {
      Name: acl.Name ?? 'lab_fw',
      EnvVars: [
        { Name: 'RECORD_DIR', Value: records, Sensitive: false },
        { Name: 'API_KEY', Value: acl.secret ?? 'k3y-Sup3r-s3cret', Sensitive: true },
      ],
    },
  };
}

const entry = (ip: string, userName = 'alice'): DriverEntry => ({ ip, ttlSeconds: 300, userName });

/** What the recorder saw for one run. */
async function recorded(action: string, ip: string) {
  const base = path.join(records, `${action}-${ip}`);
  const argv = (await readFile(`${base}.argv`, 'utf8')).trimEnd().split('\n');
  const env = Object.fromEntries(
    (await readFile(`${base}.env`, 'utf8'))
      .split('\0')
      .filter((line) => line !== '')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  return { argv, env };
}

describe('script driver', () => {
  it("runs the script with [action, aclName, ip] and the spec's knoc_* variables", async () => {
    const outcomes = await driver().apply(knoc('record.sh'), [entry('203.0.113.7')]);

    expect(outcomes).toEqual([{ ip: '203.0.113.7', ok: true, error: '' }]);
    const { argv, env } = await recorded('add', '203.0.113.7');
    expect(argv).toEqual(['add', 'lab_fw', '203.0.113.7']);
    expect(env).toMatchObject({
      knoc_action: 'add',
      knoc_aclname: 'lab_fw',
      knoc_username: 'alice',
      knoc_cidr: '203.0.113.7/32',
      knoc_ipaddr: '203.0.113.7',
    });
  });

  it("passes the knoc's variables, the decrypted sensitive one included, and nothing of the agent's own environment", async () => {
    process.env.POSTERN_AGENT_TOKEN_FOR_TEST = 'must-not-leak';
    try {
      await driver().apply(knoc('record.sh'), [entry('203.0.113.7')]);
    } finally {
      delete process.env.POSTERN_AGENT_TOKEN_FOR_TEST;
    }

    const { env } = await recorded('add', '203.0.113.7');
    expect(env.API_KEY).toBe('k3y-Sup3r-s3cret');
    expect(env.RECORD_DIR).toBe(records);
    expect(env.PATH).toBe('/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
    expect(Object.values(env)).not.toContain('must-not-leak');
  });

  it('runs remove with the remove action and an IPv6 knoc_cidr of /128', async () => {
    const outcomes = await driver().remove(knoc('record.sh'), [entry('2001:db8::7', 'bob')]);

    expect(outcomes[0]?.ok).toBe(true);
    const { argv, env } = await recorded('remove', '2001:db8::7');
    expect(argv).toEqual(['remove', 'lab_fw', '2001:db8::7']);
    expect(env).toMatchObject({ knoc_action: 'remove', knoc_cidr: '2001:db8::7/128', knoc_username: 'bob' });
  });

  it("names the knoc by its description when the script's ACL Name is empty", async () => {
    await driver().apply(knoc('record.sh', { Name: '' }), [entry('203.0.113.7')]);

    const { argv, env } = await recorded('add', '203.0.113.7');
    expect(argv[1]).toBe('Lab firewall');
    expect(env.knoc_aclname).toBe('Lab firewall');
  });

  it('runs one process per entry and reports each', async () => {
    const ips = ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.4', '203.0.113.5', '203.0.113.6'];

    const outcomes = await driver().apply(
      knoc('record.sh'),
      ips.map((ip) => entry(ip)),
    );

    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    for (const ip of ips) expect((await recorded('add', ip)).argv[2]).toBe(ip);
  });

  it("makes a failing script's trimmed stderr the entry's error, with sensitive values hidden", async () => {
    const outcomes = await driver().apply(knoc('fail.sh'), [entry('203.0.113.7')]);

    expect(outcomes).toEqual([
      { ip: '203.0.113.7', ok: false, error: 'firewall refused 203.0.113.7 (token [redacted])' },
    ]);
  });

  it('keeps only the end of a long stderr', async () => {
    const [outcome] = await driver().apply(knoc('chatty.sh'), [entry('203.0.113.7')]);

    expect(outcome?.ok).toBe(false);
    expect(outcome?.error.length).toBeLessThanOrEqual(SCRIPT_ERROR_MAX_BYTES + 1);
    expect(outcome?.error.endsWith('the end')).toBe(true);
  });

  it('stops a script that runs past the time limit, together with what it started', async () => {
    const [outcome] = await driver({ timeoutSeconds: 1 }).apply(knoc('hang.sh'), [entry('203.0.113.7')]);

    expect(outcome).toEqual({
      ip: '203.0.113.7',
      ok: false,
      error: 'script did not finish within 1 s and was stopped',
    });
    const child = Number(await readFile(path.join(records, 'child.pid'), 'utf8'));
    await waitFor(() => !isAlive(child), 'the script’s child process to be gone', 5000);
  });

  it('refuses to run anything when scripts are disabled', async () => {
    await expect(driver({ enabled: false }).apply(knoc('record.sh'), [entry('203.0.113.7')])).rejects.toThrow(
      "scripts are disabled in this agent's configuration (scripts.enabled)",
    );
    expect(await readdir(records)).toEqual([]);
  });

  it.each([
    ['a path outside the scripts directory', () => path.join(root, 'outside.sh'), 'is outside the scripts directory'],
    ['a path climbing out with ..', () => '../outside.sh', 'may not contain ".."'],
    ['a symlink that leads outside', () => 'escape.sh', 'outside the scripts directory'],
  ])('refuses %s', async (_name, command, problem) => {
    await expect(driver().apply(knoc(command()), [entry('203.0.113.7')])).rejects.toThrow(problem);
    expect(await readdir(records)).toEqual([]);
  });

  it('refuses a script that others may write', async () => {
    const file = path.join(scripts, 'writable.sh');
    await writeFile(file, SCRIPTS['record.sh'] ?? '');
    await chmod(file, 0o777);

    await expect(driver().apply(knoc('writable.sh'), [entry('203.0.113.7')])).rejects.toThrow(
      'is writable by group or others',
    );
  });

  it('lists nothing and flushes nothing: a script cannot say what it holds', async () => {
    const scriptDriver = driver();

    expect(await scriptDriver.list()).toEqual([]);
    await scriptDriver.flush();
    expect(await readdir(records)).toEqual([]);
  });
});

/** Whether the process still runs; a zombie (killed, not yet reaped by init) does not. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
