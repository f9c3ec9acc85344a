import type { HaproxySocket } from '../../config/settings.js';
import type { SocketBackend } from '../socket-backend.js';

/**
 * Where a backend's HAProxy runtime API is: its own Protocol and Address, or the agent's configured
 * socket when the backend leaves the Address empty.
 */
export function runtimeTarget(backend: SocketBackend, agentSocket: HaproxySocket | null): HaproxySocket {
  if (backend.Address === '') {
    if (agentSocket !== null) return agentSocket;
    throw new Error("the backend names no HAProxy socket and this agent's configuration has no haproxy.socket");
  }
  if (backend.Protocol === 'unix') {
    if (!backend.Address.startsWith('/'))
      throw new Error(`HAProxy unix socket ${backend.Address} is not an absolute path`);
    return { kind: 'unix', path: backend.Address };
  }
  return { kind: 'tcp', ...parseHostPort(backend.Address) };
}

/** `host:port` or `[v6]:port`, as the backend's tcp Address is written. */
export function parseHostPort(address: string): { host: string; port: number } {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(address.trim());
  const port = Number(match?.[3]);
  const host = match?.[1] ?? match?.[2];
  if (host === undefined || !(port >= 1 && port <= 65_535)) {
    throw new Error(`${address} is not host:port`);
  }
  return { host, port };
}

/** The target as one key, to serialise the calls that use the same socket. */
export function targetKey(target: HaproxySocket): string {
  return target.kind === 'unix' ? `unix:${target.path}` : `tcp:${target.host}:${target.port}`;
}
