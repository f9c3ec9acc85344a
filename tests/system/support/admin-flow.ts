import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { capture, REPO_ROOT, type RunningProcess } from '@postern/test-support';
import { stopAgent } from './grant-topology.js';
import { createNamespace, missingNetnsSupport, removeNamespace, type Namespace } from './netns.js';
import type { StoreChoice } from './postern-server.js';
import { relayServerIntoNamespace, type ServerRelay } from './relay.js';

/**
 * Support for the admin console's main flow (admin-console-flow.chromium.system.test.ts): the real agent in a
 * network namespace of its own, what it will report about this host, and the audit CSV read back.
 */

/** Null when this store can run here; PostgreSQL needs POSTERN_TEST_DATABASE_URL (else it would be SQLite again). */
export function missingStore(store: StoreChoice): string | null {
  if (store === 'sqlite') return null;
  const url = process.env.POSTERN_TEST_DATABASE_URL;
  return url === undefined || url === '' ? 'PostgreSQL (set POSTERN_TEST_DATABASE_URL)' : null;
}

/** Null when an agent can be run in a namespace here (root, iproute2, ipset). */
export function missingAgentNamespace(): string | null {
  return missingNetnsSupport({ ipset: 'ipset' });
}

/** The port the relay listens on inside the agent's namespace, standing in for the server there. */
const RELAY_PORT = 18_081;

/** The built agent running in a namespace of its own, connected to the server through a relay. */
export interface NamespacedAgent {
  process: RunningProcess;
  namespace: Namespace;
  dispose(): Promise<void>;
}

/**
 * Runs `apps/agent/dist/main.js run` with `token`, as the install command's unit would, but inside a
 * fresh network namespace: the `ipset` it probes for its capabilities is the namespace's own, so
 * nothing on the host is read or changed. Its state and key files live in a temporary directory.
 */
export async function startNamespacedAgent(serverPort: number, token: string): Promise<NamespacedAgent> {
  const namespace = await createNamespace('agt');
  const dir = mkdtempSync(path.join(tmpdir(), 'postern-flow-agent-'));
  const socketPath = path.join(dir, 'server.sock');
  const children: ChildProcess[] = [];
  let relay: ServerRelay | undefined;
  let agent: RunningProcess | undefined;
  const dispose = async () => {
    await stopAgent(agent);
    for (const child of children) child.kill('SIGKILL');
    relay?.close();
    await removeNamespace(namespace.name);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    relay = await relayServerIntoNamespace(namespace, serverPort, socketPath, RELAY_PORT);
    children.push(relay.child);

    const child = spawn(
      namespace.prefix[0] as string,
      [...namespace.prefix.slice(1), process.execPath, path.join(REPO_ROOT, 'apps/agent/dist/main.js'), 'run'],
      {
        cwd: REPO_ROOT,
        env: {
          PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
          POSTERN_AGENT_SERVER_URL: relay.url,
          POSTERN_AGENT_TOKEN: token,
          POSTERN_AGENT_STATE_FILE: path.join(dir, 'state.json'),
          POSTERN_AGENT_HEARTBEAT_SECONDS: '5',
          POSTERN_AGENT_LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    agent = capture(child);
  } catch (error) {
    await dispose();
    throw error;
  }
  return { process: agent, namespace, dispose };
}

/** "Debian GNU/Linux 12 (bookworm)": NAME and VERSION of this host's /etc/os-release, as the console shows them. */
export function hostOperatingSystem(): string {
  const fields = new Map<string, string>();
  for (const line of readFileSync('/etc/os-release', 'utf8').split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (match?.[1] !== undefined) fields.set(match[1], (match[2] ?? '').replace(/^(["'])(.*)\1$/, '$2'));
  }
  return `${fields.get('NAME') ?? ''} ${fields.get('VERSION') ?? ''}`.trim();
}

/** Parses RFC 4180 CSV (every cell quoted or not, quotes doubled, CRLF line ends) into rows of cells. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        cell += '"';
        index += 1;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\r' && text[index + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      index += 1;
    } else cell += char;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

/** The local calendar day as YYYY-MM-DD (the browser runs on this machine, in its time zone). */
export function localDate(now = new Date()): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** Opens an admin screen from the sidebar, as an admin does, and waits for its heading. */
export async function openFromNavigation(page: Page, screen: string): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Admin navigation' })
    .getByRole('link', { name: screen, exact: true })
    .click();
  await page.getByRole('heading', { level: 1, name: screen, exact: true }).waitFor();
}

/**
 * Creates an agent in the Agents screen's dialog, as an admin does, and reads its token from the
 * install dialog that follows (left open for the caller to look at and close).
 */
export async function createAgentInConsole(page: Page, name: string): Promise<{ token: string; install: Locator }> {
  await page.getByRole('button', { name: 'Create agent' }).click();
  const form = page.getByRole('dialog', { name: 'Create agent' });
  await form.getByLabel('Name').fill(name);
  await form.getByRole('button', { name: 'Create', exact: true }).click();
  const install = page.getByRole('dialog', { name: `Install agent ${name}` });
  await install.waitFor();
  const token = (await install.getByLabel('Token', { exact: true }).innerText()).trim();
  return { token, install };
}

/** The body row of `table` that mentions `text`. */
export function rowWith(table: Locator, text: string): Locator {
  return table.getByRole('row').filter({ hasText: text });
}

/** The text content of a row's cells, trimmed (as written, not as CSS capitalises it on screen). */
export async function cellTexts(row: Locator): Promise<string[]> {
  return (await row.getByRole('cell').allTextContents()).map((text) => text.trim());
}
