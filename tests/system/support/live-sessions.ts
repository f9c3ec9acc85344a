import { createInterface } from 'node:readline';
import { expect } from 'vitest';
import { waitFor } from '@postern/test-support';
import type { Namespace } from './netns.js';

/*
 * Long-lived TCP sessions for the tests that revocation and expiry end live connections
 * (managed-rule*.system.test.ts): an echo server in the protected namespace, and sessions from the
 * client namespace that send a byte every 100 ms and count the echoes, so a test can say when a
 * session stopped getting answers.
 */

/** Node source of an echo server on `address:port` that prints "listening" once it is. */
export function echoServerSource(address: string, port: number): string {
  return `
require('node:net').createServer((socket) => { socket.on('error', () => {}); socket.pipe(socket); })
  .listen(${port}, '${address}', () => console.log('listening'));
`;
}

/** A byte every 100 ms; a line per echo; never gives up on its own (retransmits until killed). */
function sessionSource(server: string, port: number, source: string): string {
  return `
const socket = require('node:net').connect({ host: '${server}', port: ${port}, localAddress: '${source}' });
socket.setNoDelay(true);
socket.on('connect', () => { console.log('connected'); setInterval(() => socket.write('x'), 100); });
socket.on('data', (data) => { for (let i = 0; i < data.length; i += 1) console.log('echo'); });
socket.on('error', (error) => console.log('error ' + error.code));
`;
}

export interface LiveSession {
  source: string;
  /** When the last echo arrived (Date.now()). */
  lastEchoAt(): number;
  echoes(): number;
  close(): void;
}

/** The sessions a test file opened, closed together after each test. */
export class LiveSessions {
  readonly #open: LiveSession[] = [];

  constructor(
    private readonly client: () => Namespace,
    private readonly server: string,
    private readonly port: number,
  ) {}

  /** Opens a session from `source` (an address of the client namespace); resolves once echoes flow. */
  async open(source: string): Promise<LiveSession> {
    const child = this.client().spawn([process.execPath, '-e', sessionSource(this.server, this.port, source)]);
    let lastEchoAt = 0;
    let echoes = 0;
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (line !== 'echo') return;
      echoes += 1;
      lastEchoAt = Date.now();
    });
    const session: LiveSession = {
      source,
      lastEchoAt: () => lastEchoAt,
      echoes: () => echoes,
      close: () => child.kill('SIGKILL'),
    };
    this.#open.push(session);
    await waitFor(() => echoes >= 3, `echoes on the session from ${source}`, 5_000);
    return session;
  }

  closeAll(): void {
    for (const session of this.#open.splice(0)) session.close();
  }
}

/** Whether the session still gets echoes: one arrived in the last 500 ms. */
export const flowing = (session: LiveSession) => Date.now() - session.lastEchoAt() < 500;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The part of a set driver the two scenarios below drive (its knocs already configured). */
interface SetDriver<K> {
  apply(knoc: K, entries: readonly { ip: string; ttlSeconds: number; userName: string }[]): Promise<unknown>;
  remove(knoc: K, entries: readonly { ip: string; ttlSeconds: number; userName: string }[]): Promise<unknown>;
  close(): Promise<void>;
}

interface Scenario<K> {
  driver: SetDriver<K>;
  /** A knoc whose backend has the ManagedRule, configured on the driver. */
  knoc: K;
  sessions: LiveSessions;
  /** The address whose session is to stop, and one that stays granted. */
  revoked: string;
  kept: string;
}

const entry = (ip: string, ttlSeconds: number) => ({ ip, ttlSeconds, userName: 'alice' });

/** A revoke stops the revoked address's open session within 1 s, while the granted one goes on. */
export async function expectRevokeEndsItsSession({ driver, knoc, sessions, revoked, kept }: Scenario<unknown>) {
  await driver.apply(knoc, [entry(revoked, 300), entry(kept, 300)]);
  const ending = await sessions.open(revoked);
  const going = await sessions.open(kept);

  const revokedAt = Date.now();
  const outcomes = await driver.remove(knoc, [entry(revoked, 300)]);
  await sleep(1_500);

  expect(outcomes).toEqual([{ ip: revoked, ok: true, error: '' }]);
  expect(ending.lastEchoAt() - revokedAt, 'the revoked session stopped within 1 s').toBeLessThan(1_000);
  expect(flowing(ending)).toBe(false);
  expect(flowing(going), 'the granted session goes on').toBe(true);
}

/**
 * The kernel's expiry of a 3 s entry stops its open session within 2 s, with the driver closed and
 * nothing run after (`ran`: every program the driver ran), while a granted session goes on.
 */
export async function expectExpiryEndsItsSession({
  driver,
  knoc,
  sessions,
  revoked,
  kept,
  ran,
}: Scenario<unknown> & { ran: string[][] }) {
  const appliedAt = Date.now();
  await driver.apply(knoc, [entry(revoked, 3), entry(kept, 300)]);
  const expiring = await sessions.open(revoked);
  const going = await sessions.open(kept);
  // No Postern process from here on: only the kernel's timeout and the rules.
  await driver.close();
  ran.length = 0;

  const expiresAt = appliedAt + 3_000;
  await sleep(Math.max(0, expiresAt + 2_500 - Date.now()));

  expect(ran, 'nothing ran after the driver closed').toEqual([]);
  expect(expiring.echoes()).toBeGreaterThan(5);
  expect(expiring.lastEchoAt() - expiresAt, 'the expired session stopped within 2 s of the expiry').toBeLessThan(2_000);
  expect(flowing(expiring)).toBe(false);
  expect(flowing(going), 'the granted session goes on').toBe(true);
}
