import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** How long one turn of the event loop may spend handing waiting upgrades to the router. */
const TURN_BUDGET_MS = 4;

type UpgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** Ends the pacing (the app is closing): see {@link paceUpgrades}. */
export interface UpgradePacer {
  stop(): void;
}

/**
 * Hands the server's WebSocket upgrades (the agents' connections) to their listeners a few per turn
 * of the event loop instead of all at once. A fleet reconnecting together lands thousands of upgrade
 * requests in one poll of the sockets, and routing each (the request's hooks, up to the route's own
 * check) costs about half a millisecond: handled in one go they held the event loop for seconds, and
 * every person's request waited behind them. Queued here, they are routed in order, a few
 * milliseconds' worth per turn, with the users' requests answered in between; nothing about who may
 * connect is decided here (that is the route's), and a socket that closes while it waits is dropped.
 *
 * Call after the listeners are attached (the WebSocket plugin's, on the app's ready), and stop it
 * when the app starts closing (before the server stops listening and waits for its sockets): from
 * then on upgrades are refused as Node refuses them without a listener (the socket is closed),
 * those still waiting included.
 */
export function paceUpgrades(server: Server): UpgradePacer {
  const listeners = server.listeners('upgrade') as UpgradeListener[];
  if (listeners.length === 0) return { stop: () => undefined };
  server.removeAllListeners('upgrade');
  const waiting: { request: IncomingMessage; socket: Duplex; head: Buffer }[] = [];
  let scheduled = false;
  let stopped = false;

  const drain = () => {
    scheduled = false;
    if (stopped) return;
    const started = performance.now();
    while (waiting.length > 0 && performance.now() - started < TURN_BUDGET_MS) {
      const { request, socket, head } = waiting.shift() as (typeof waiting)[number];
      socket.removeListener('error', ignoreWhileWaiting);
      if (socket.destroyed) continue;
      for (const listener of listeners) listener.call(server, request, socket, head);
    }
    if (waiting.length > 0) schedule();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(drain);
  };

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (stopped) {
      socket.destroy();
      return;
    }
    // Node takes its own error listener off the socket before emitting 'upgrade': an error while
    // the socket waits (the peer gave up) must not become an uncaught exception.
    socket.on('error', ignoreWhileWaiting);
    waiting.push({ request, socket, head });
    schedule();
  });

  return {
    stop: () => {
      stopped = true;
      for (const { socket } of waiting.splice(0)) socket.destroy();
    },
  };
}

/** A waiting socket that fails is destroyed, and skipped when its turn comes. */
const ignoreWhileWaiting = (): void => undefined;
