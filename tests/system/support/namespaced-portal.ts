import { createServer as createNetServer, connect, type Server } from 'node:net';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { Browser } from 'playwright-core';
import { launchChromium } from './browser.js';
import { createNamespace, removeNamespace, type Namespace } from './netns.js';
import { startPosternServer, type PosternServer } from './postern-server.js';
import { pipeSockets, waitForLine } from './relay.js';
import { CHROMIUM_PATH } from './requirements.js';

/**
 * A Postern server and a Chromium that both run inside one network namespace the test creates, so
 * the browser can reach the server on an address that is not loopback (loopback is never granted):
 *
 *   namespace: lo 127.0.0.1 and 10.78.0.1 (an address of its own, on its loopback device)
 *     postern on 0.0.0.0:<port> and the discovery responder on 0.0.0.0:<discovery ports>
 *     chromium (started through `ip netns exec`)
 *
 * The browser opens the portal at `browserUrl`, http://{@link NAMESPACE_ADDRESS}:<port>, so the
 * built-in responder is offered on that host name too and sees the browser come from that address.
 * The server runs in plain-HTTP mode (cookies without Secure: the page is not a secure context) and
 * believes X-Forwarded-For from the browser's address, so a test can say where the portal should
 * think the person is. The test process stays on the host and talks to the server through a relay on
 * the host's 127.0.0.1:<port> → a unix socket (shared across namespaces) → 127.0.0.1:<port> inside.
 */
export interface NamespacedPortal {
  /** The server; its `url` works from the host (relayed). */
  server: PosternServer;
  /** Where the browser opens the portal, inside the namespace. */
  browserUrl: string;
  browser: Browser;
  namespace: Namespace;
  dispose(): Promise<void>;
}

/** The namespace's own non-loopback address (RFC 1918), on which the browser reaches the responder. */
export const NAMESPACE_ADDRESS = '10.78.0.1';

const INNER_RELAY_SOURCE = `
const net = require('node:net');
const [socketPath, port] = process.argv.slice(1);
net.createServer((inbound) => {
  const outbound = net.connect(Number(port), '127.0.0.1');
  inbound.pipe(outbound).pipe(inbound);
  inbound.on('error', () => outbound.destroy());
  outbound.on('error', () => inbound.destroy());
}).listen(socketPath, () => console.log('relay ready'));
`;

/** Starts the namespace, the server in it (SQLite: PostgreSQL on the host is out of reach), the relay and Chromium. */
export async function startNamespacedPortal(settings: Record<string, string>): Promise<NamespacedPortal> {
  const namespace = await createNamespace('portal');
  const dir = mkdtempSync(path.join(tmpdir(), 'postern-nsportal-'));
  let server: PosternServer | undefined;
  let relay: Server | undefined;
  let inner: ChildProcess | undefined;
  let browser: Browser | undefined;
  const dispose = async () => {
    await browser?.close().catch(() => undefined);
    relay?.close();
    inner?.kill('SIGKILL');
    await server?.stop();
    await removeNamespace(namespace.name);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await namespace.exec(['ip', 'addr', 'add', `${NAMESPACE_ADDRESS}/32`, 'dev', 'lo']);
    server = await startPosternServer(
      {
        ...settings,
        POSTERN_HOST: '0.0.0.0',
        POSTERN_INSECURE_HTTP: 'true',
        POSTERN_TRUSTED_PROXIES: `127.0.0.1,${NAMESPACE_ADDRESS}`,
      },
      'sqlite',
      namespace.prefix,
    );
    const port = Number(new URL(server.url).port);

    const socketPath = path.join(dir, 'portal.sock');
    inner = namespace.spawn([process.execPath, '-e', INNER_RELAY_SOURCE, socketPath, String(port)]);
    await waitForLine(inner, 'relay ready');
    relay = createNetServer((inbound) => pipeSockets(inbound, connect(socketPath)));
    const listening = relay;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(port, '127.0.0.1', resolve);
    });

    // Playwright starts "Chromium" with its pipes on fds 3 and 4; `ip netns exec` keeps them open.
    const wrapper = path.join(dir, 'chromium-in-namespace');
    writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec ${namespace.name} ${CHROMIUM_PATH} "$@"\n`);
    chmodSync(wrapper, 0o755);
    browser = await launchChromium(wrapper);
    return { server, browserUrl: `http://${NAMESPACE_ADDRESS}:${port}`, browser, namespace, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
