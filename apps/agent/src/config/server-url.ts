import { isIP } from 'node:net';
import { AGENT_CONNECT_PATH } from '@postern/protocol';

/** The WebSocket URL for a validated server URL: http(s) becomes ws(s), the agent path is appended. */
export function toConnectUrl(serverUrl: string): string {
  const url = new URL(serverUrl);
  const scheme = url.protocol === 'https:' || url.protocol === 'wss:' ? 'wss:' : 'ws:';
  return `${scheme}//${url.host}${url.pathname.replace(/\/+$/, '')}${AGENT_CONNECT_PATH}`;
}

/** Whether a host name or address can only mean this machine, where plain HTTP cannot be sniffed. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || /^::ffff:127\./.test(host) || /^::ffff:7f/.test(host);
  return false;
}

/** How the agent reaches the server: the part of its configuration the warnings look at. */
export interface ServerConnection {
  serverUrl: string;
  insecureSkipVerify: boolean;
}

/** Warnings about how the agent reaches the server: the token travels in clear, or TLS is not checked. */
export function serverWarnings(config: ServerConnection): string[] {
  const warnings: string[] = [];
  const url = new URL(config.serverUrl);
  if ((url.protocol === 'http:' || url.protocol === 'ws:') && !isLoopbackHost(url.hostname)) {
    warnings.push(
      `serverUrl ${config.serverUrl} is not encrypted: the agent token and every grant cross the network in clear; use https://`,
    );
  }
  if (config.insecureSkipVerify) {
    warnings.push(
      'INSECURE: insecureSkipVerify is on, so the server certificate is not checked and anyone on the path can impersonate the server; use caFile instead',
    );
  }
  return warnings;
}
