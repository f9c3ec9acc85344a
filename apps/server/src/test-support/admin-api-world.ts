import { afterEach, beforeEach } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { AgentSync } from '../grants/agent-sync.js';
import type { TestAppOptions, TestStoreKind } from './test-app.js';
import { useTestApp, type LiveTestApp } from './use-test-app.js';
import { givenAdmin } from './factories.js';
import { agentCapabilities, givenAgent, type GivenSealingKey } from './agent-factories.js';
import { givenLicence, TEST_LICENCE_KEYS } from './licence.js';
import { givenAdminSession } from './sessions.js';
import { adminClient, type AdminClient, type AdminMethod } from './admin-client.js';
import { extendWorld, liveView } from './test-world.js';

/** An id no row has. */
export const UNKNOWN_ID = '01890000-0000-7000-8000-000000000000';

/** The error a refused call answered, with its status. */
export interface Refusal {
  status: number;
  Err: string;
  Extra?: string;
}

/**
 * What every admin API test of backends and knocs starts from: the app (one per file, reset before
 * each test: useTestApp), and made afresh for each test an admin 'ops' signed in, a capable agent
 * 'edge' (1.9.0), and the agents the server told of a change.
 */
export interface AdminApiWorld {
  readonly t: LiveTestApp;
  readonly agent: { id: string; name: string; token: string; sealing: GivenSealingKey | null };
  /**
   * The ids of each agentsChanged call, one list per call. The same array for every test, emptied
   * before each: a test forgets the calls of its own setup with `agentsChanged.length = 0`.
   */
  readonly agentsChanged: string[][];
  /** The signed-in admin's client. */
  readonly admin: AdminClient;
  /** Calls the API as the signed-in admin: its raw response (`admin` parses the answer). */
  readonly call: (method: AdminMethod, url: string, payload?: object) => Promise<LightMyRequestResponse>;
  /** The status and error body of a refused call. */
  readonly refusal: (response: LightMyRequestResponse) => Refusal;
}

export interface AdminApiWorldOptions {
  /** Install a licence first (knocs need one). */
  licensed?: boolean;
  config?: TestAppOptions['config'];
}

/**
 * Registers the hooks that make an AdminApiWorld; call it at the top of a `describe`, and read the
 * world's fields inside the tests (or in a later beforeEach).
 *
 *     const world = useAdminApiWorld(kind, { licensed: true });
 *     const { call, refusal, agentsChanged } = world;
 *     let t: TestApp;
 *     beforeEach(() => ({ t } = world));
 */
export function useAdminApiWorld(kind: TestStoreKind, options: AdminApiWorldOptions = {}): AdminApiWorld {
  const licensed = options.licensed ?? false;
  const t = useTestApp(kind, {
    config: { ...(licensed ? { licencePublicKeys: TEST_LICENCE_KEYS } : {}), ...options.config },
  });
  let current: { t: LiveTestApp; admin: AdminClient; agent: AdminApiWorld['agent'] } | undefined;
  const now = () => {
    if (current === undefined) throw new Error('the admin API world exists only inside a test');
    return current;
  };
  const agentsChanged: string[][] = [];
  beforeEach(async () => {
    if (licensed) await givenLicence(t.ctx);
    agentsChanged.length = 0;
    const recordingSync: AgentSync = {
      entriesChanged: () => undefined,
      deliverEntryChanges: () => Promise.resolve(),
      agentsChanged: (ids) => {
        agentsChanged.push([...ids]);
      },
      disconnectAgent: () => undefined,
    };
    // The reset puts the hub back as the context's agentSync before the next test.
    t.ctx.agentSync = recordingSync;
    const ops = await givenAdmin(t.ctx, { userName: 'ops' });
    const admin = adminClient(t.app, await givenAdminSession(t, ops));
    const agent = await givenAgent(t.ctx, { name: 'edge', capabilities: agentCapabilities(), version: '1.9.0' });
    current = { t, admin, agent };
  });
  afterEach(() => {
    current = undefined;
  });
  const call: AdminApiWorld['call'] = async (method, url, payload) =>
    (await now().admin.request(method, url, payload)).response;
  const refusal: AdminApiWorld['refusal'] = (response) => ({
    status: response.statusCode,
    ...response.json<{ Err: string; Extra?: string }>(),
  });
  return extendWorld(liveView(now, ['t', 'admin', 'agent']), { agentsChanged, call, refusal });
}
