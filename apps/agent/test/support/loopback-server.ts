import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

/** A server on 127.0.0.1 at a random port, for the vendor client tests and fakes. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` (https with `tls`). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Requests held unanswered while the loopback servers of this test file hang. */
const held = new Set<http.ServerResponse>();
let hanging = false;
const heldWaiters: (() => void)[] = [];

/**
 * Every loopback server of this test file (each file has its own module instance) stops answering:
 * requests are received and held, never answered, as by a device that hangs. `false` answers again
 * and drops the connections of the held requests (their callers gave up on them long ago).
 */
export function setLoopbackHang(on: boolean): void {
  hanging = on;
  if (!on) {
    for (const res of held) res.socket?.destroy();
    held.clear();
  }
}

/** Requests held unanswered so far (see {@link setLoopbackHang}). */
export function heldRequestCount(): number {
  return held.size;
}

/** Resolves once at least `count` requests are held unanswered. */
export function whenRequestsHeld(count: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (held.size >= count) resolve();
      else heldWaiters.push(check);
    };
    check();
  });
}

/** Serves `handler` (with the request body read) on loopback; TLS with the given key and certificate. */
export async function startLoopbackServer(
  handler: Handler,
  tls?: { key: string | Buffer; cert: string | Buffer },
): Promise<LoopbackServer> {
  const listener: http.RequestListener = (req, res) => {
    if (hanging) {
      held.add(res);
      res.on('close', () => held.delete(res));
      for (const waiter of heldWaiters.splice(0)) waiter();
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  };
  const server = tls === undefined ? http.createServer(listener) : https.createServer(tls, listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers JSON with a status. */
export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
