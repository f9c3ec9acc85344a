import type { ChildProcess } from 'node:child_process';
import { connect, createServer, type Server } from 'node:net';
import type { Namespace } from './netns.js';
import { pipeSockets, waitForLine } from './relay.js';

/**
 * The server as hosts on a namespace's network reach it: an HTTP reverse proxy standing for a load
 * balancer, listening inside `namespace` on `address:port`, that tells the server where each request
 * came from in X-Forwarded-For (the server trusts 127.0.0.1, where the proxy's requests arrive) and
 * forwards through a unix socket (shared across namespaces) to the server on the host's 127.0.0.1.
 *
 * Connections are not kept alive: each request comes from the address the client has at that moment,
 * so a client whose address changed is seen at its new one on its next request.
 */
export interface LoadBalancer {
  /** The server's URL for clients on the namespace's network. */
  url: string;
  child: ChildProcess;
  close(): void;
}

const PROXY_SOURCE = `
const http = require('node:http');
const [socketPath, address, port] = process.argv.slice(1);
http.createServer((request, response) => {
  const upstream = http.request(
    {
      socketPath,
      method: request.method,
      path: request.url,
      headers: { ...request.headers, 'x-forwarded-for': request.socket.remoteAddress, connection: 'close' },
    },
    (answer) => {
      response.writeHead(answer.statusCode, { ...answer.headers, connection: 'close' });
      answer.pipe(response);
    },
  );
  upstream.on('error', () => {
    response.writeHead(502);
    response.end();
  });
  request.pipe(upstream);
}).listen(Number(port), address, () => console.log('load balancer ready'));
`;

export async function startLoadBalancer(
  namespace: Namespace,
  address: string,
  port: number,
  serverPort: number,
  socketPath: string,
): Promise<LoadBalancer> {
  const hostSide: Server = createServer((inbound) => pipeSockets(inbound, connect(serverPort, '127.0.0.1')));
  await new Promise<void>((resolve) => hostSide.listen(socketPath, resolve));
  const child = namespace.spawn([process.execPath, '-e', PROXY_SOURCE, socketPath, address, String(port)]);
  try {
    await waitForLine(child, 'load balancer ready');
  } catch (error) {
    child.kill('SIGKILL');
    hostSide.close();
    throw error;
  }
  return { url: `http://${address}:${port}`, child, close: () => hostSide.close() };
}
