import type { AgentBackendConfig } from '@postern/protocol';

/** Where a socket lives: the backend's Protocol and Address ('' means "the agent's default"). */
export interface SocketBackend {
  Protocol: 'unix' | 'tcp';
  Address: string;
}

/** The socket a haproxy or knocproxy backend names, with the defaults of a backend that names none. */
export function socketBackend(backend: AgentBackendConfig<'haproxy' | 'knocproxy'>): SocketBackend {
  return { Protocol: backend.Protocol ?? 'unix', Address: (backend.Address ?? '').trim() };
}
