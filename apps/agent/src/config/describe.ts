import type { AgentConfig } from './config.js';
import { REDACTED } from './secret.js';
import type { HaproxySocket } from './settings.js';

/**
 * The effective configuration as plain JSON, shaped like the config file (plus `configFile` and
 * `connectUrl`), for the start log line and `check-config`. The token shows only as "[set]".
 */
export function describeConfig(config: AgentConfig) {
  return {
    configFile: config.configFile,
    serverUrl: config.serverUrl,
    connectUrl: config.connectUrl,
    token: REDACTED,
    tokenFile: config.tokenFile,
    stateFile: config.stateFile,
    keyFile: config.keyFile,
    caFile: config.caFile,
    insecureSkipVerify: config.insecureSkipVerify,
    scripts: { ...config.scripts },
    ipset: { allowedSets: [...config.ipset.allowedSets], useSudo: config.ipset.useSudo },
    nftables: { allowedSets: [...config.nftables.allowedSets], useSudo: config.nftables.useSudo },
    haproxy: { socket: config.haproxy.socket === null ? null : formatHaproxySocket(config.haproxy.socket) },
    knocproxy: { ...config.knocproxy },
    aws: { ...config.aws },
    azure: { ...config.azure },
    heartbeatSeconds: config.heartbeatSeconds,
    driftCheckSeconds: config.driftCheckSeconds,
    metrics: { listen: config.metrics.listen === null ? 'off' : formatListen(config.metrics.listen) },
    logLevel: config.logLevel,
  };
}

/** The effective configuration as {@link describeConfig} shows it. */
export type EffectiveConfig = ReturnType<typeof describeConfig>;

/** A listen address as an operator writes it: host:port, [v6]:port. */
function formatListen(listen: { host: string; port: number }): string {
  return `${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${listen.port}`;
}

/** A socket as an operator writes it (and as the agent reports it to the server as socket_location). */
export function formatHaproxySocket(socket: HaproxySocket): string {
  if (socket.kind === 'unix') return socket.path;
  return `tcp://${socket.host.includes(':') ? `[${socket.host}]` : socket.host}:${socket.port}`;
}
