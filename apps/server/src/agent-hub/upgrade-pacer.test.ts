import { createServer, type IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { waitFor } from '@postern/test-support';
import { paceUpgrades } from './upgrade-pacer.js';

/** Spends about `ms` of the event loop, as routing an upgrade does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // The work of the request's hooks.
  }
}

const upgrade = (path: string) => ({ request: { url: path } as IncomingMessage, socket: new PassThrough() });

/**
 * The next turn of the event loop, after the pacer's: it hands upgrades on in setImmediate callbacks,
 * and this one, queued later, runs after those already queued.
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('paceUpgrades', () => {
  it('hands every upgrade to the listener, in order, a few per turn of the event loop', async () => {
    const server = createServer();
    const routed: string[] = [];
    server.on('upgrade', (request: IncomingMessage) => {
      busy(1);
      routed.push(request.url ?? '');
    });
    paceUpgrades(server);

    const burst = Array.from({ length: 40 }, (_, index) => upgrade(`/agent/${index}`));
    for (const { request, socket } of burst) server.emit('upgrade', request, socket, Buffer.alloc(0));
    expect(routed).toEqual([]);
    // A request arriving with the burst gets a turn long before the burst is through.
    const routedWhenAnswered = await new Promise<number>((resolve) => setImmediate(() => resolve(routed.length)));
    expect(routedWhenAnswered).toBeGreaterThan(0);
    expect(routedWhenAnswered).toBeLessThan(burst.length);

    await waitFor(() => routed.length === burst.length, 'the whole burst to be routed');
    expect(routed).toEqual(burst.map(({ request }) => request.url));
  });

  it('drops a socket that closed while it waited, and survives its error', async () => {
    const server = createServer();
    const routed: string[] = [];
    server.on('upgrade', (request: IncomingMessage) => routed.push(request.url ?? ''));
    paceUpgrades(server);

    const gone = upgrade('/gone');
    const kept = upgrade('/kept');
    server.emit('upgrade', gone.request, gone.socket, Buffer.alloc(0));
    server.emit('upgrade', kept.request, kept.socket, Buffer.alloc(0));
    gone.socket.destroy(new Error('connection reset by peer'));
    // The upgrades are handed on in order: once the later one is through, the closed one was skipped.
    await waitFor(() => routed.includes('/kept'), 'the kept upgrade to be routed');

    expect(routed).toEqual(['/kept']);
    expect(gone.socket.destroyed).toBe(true);
  });

  it('closes the waiting and the new upgrades once stopped (the app is closing)', async () => {
    const server = createServer();
    const routed: string[] = [];
    server.on('upgrade', (request: IncomingMessage) => routed.push(request.url ?? ''));
    const pacer = paceUpgrades(server);

    const waiting = upgrade('/waiting');
    server.emit('upgrade', waiting.request, waiting.socket, Buffer.alloc(0));
    pacer.stop();
    const late = upgrade('/late');
    server.emit('upgrade', late.request, late.socket, Buffer.alloc(0));
    // The turn in which the waiting upgrade would have been handed on has passed.
    await nextTurn();

    expect(routed).toEqual([]);
    expect(waiting.socket.destroyed).toBe(true);
    expect(late.socket.destroyed).toBe(true);
  });
});
