import type { ChildProcess } from 'node:child_process';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { Namespace } from './netns.js';

/**
 * Relays between the host's loopback and a network namespace's own loopback through a unix socket,
 * whose path every namespace shares: one process listens on each side and pipes to the other.
 */

/** Pipes two sockets both ways; an error on either ends both. */
export function pipeSockets(inbound: Socket, outbound: Socket): void {
  inbound.pipe(outbound).pipe(inbound);
  inbound.on('error', () => outbound.destroy());
  outbound.on('error', () => inbound.destroy());
}

/** Waits (10 s at most) until `child` prints `text` on stdout or stderr. */
export function waitForLine(child: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no "${text}" from ${child.spawnfile}: ${output}`)), 10_000);
    const take = (chunk: string) => {
      output += chunk;
      if (output.includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.setEncoding('utf8').on('data', take);
    child.stderr?.setEncoding('utf8').on('data', take);
  });
}

/** Inside the namespace: 127.0.0.1:<port> forwarded to the unix socket. */
const NAMESPACE_SIDE_SOURCE = `
const net = require('node:net');
const [socketPath, port] = process.argv.slice(1);
net.createServer((inbound) => {
  const outbound = net.connect(socketPath);
  inbound.pipe(outbound).pipe(inbound);
  inbound.on('error', () => outbound.destroy());
  outbound.on('error', () => inbound.destroy());
}).listen(Number(port), '127.0.0.1', () => console.log('relay ready'));
`;

/** The host's server as the namespace reaches it. */
export interface ServerRelay {
  /** The server's URL inside the namespace. */
  url: string;
  /** The relay process inside the namespace (the caller kills it with the namespace's others). */
  child: ChildProcess;
  /** Stops the host side. */
  close(): void;
}

/**
 * Makes the server on the host's 127.0.0.1:`serverPort` reachable inside `namespace` at
 * http://127.0.0.1:`relayPort`, through a unix socket at `socketPath`. A function names the port
 * afresh for each connection: a load balancer sending new connections to another server.
 */
export async function relayServerIntoNamespace(
  namespace: Namespace,
  serverPort: number | (() => number),
  socketPath: string,
  relayPort: number,
): Promise<ServerRelay> {
  const portNow = typeof serverPort === 'number' ? () => serverPort : serverPort;
  const hostSide: Server = createServer((inbound) => pipeSockets(inbound, connect(portNow(), '127.0.0.1')));
  await new Promise<void>((resolve) => hostSide.listen(socketPath, resolve));
  const child = namespace.spawn([process.execPath, '-e', NAMESPACE_SIDE_SOURCE, socketPath, String(relayPort)]);
  try {
    await waitForLine(child, 'relay ready');
  } catch (error) {
    child.kill('SIGKILL');
    hostSide.close();
    throw error;
  }
  return { url: `http://127.0.0.1:${relayPort}`, child, close: () => hostSide.close() };
}
