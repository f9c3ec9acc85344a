import { afterEach, beforeEach } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { AgentSync } from '../grants/agent-sync.js';
import { createTestApp, type TestApp, type TestAppOptions, type TestStoreKind } from './test-app.js';
import { givenAdmin } from './factories.js';
import { agentCapabilities, givenAgent, type GivenSealingKey } from './agent-factories.js';
import { givenLicence, TEST_LICENCE_KEYS } from './licence.js';
import { signInAdmin } from './http.js';
import type { AdminMethod } from './admin-client.js';
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
 * What every admin API test of backends and knocs starts from, made afresh for each test: the app,
 * an admin 'ops' signed in, a capable agent 'edge' (1.9.0), and the agents the server told of a change.
 */
export interface AdminApiWorld {
  readonly t: TestApp;
  readonly agent: { id: string; name: string; token: string; sealing: GivenSealingKey | null };
  /**
   * The ids of each agentsChanged call, one list per call. The same array for every test, emptied
   * before each: a test forgets the calls of its own setup with `agentsChanged.length = 0`.
   */
  readonly agentsChanged: string[][];
  /** Calls the API as the signed-in admin. */
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
 * Registers the beforeEach and afterEach that make and close an AdminApiWorld; call it at the top
 * of a `describe`, and read the world's fields inside the tests (or in a later beforeEach).
 *
 *     const world = useAdminApiWorld(kind, { licensed: true });
 *     const { call, refusal, agentsChanged } = world;
 *     let t: TestApp;
 *     beforeEach(() => ({ t } = world));
 */
export function useAdminApiWorld(kind: TestStoreKind, options: AdminApiWorldOptions = {}): AdminApiWorld {
  let current: { t: TestApp; cookie: string; agent: AdminApiWorld['agent'] } | undefined;
  const now = () => {
    if (current === undefined) throw new Error('the admin API world exists only inside a test');
    return current;
  };
  const agentsChanged: string[][] = [];
  beforeEach(async () => {
    const licensed = options.licensed ?? false;
    const t = await createTestApp(kind, {
      config: { ...(licensed ? { licencePublicKeys: TEST_LICENCE_KEYS } : {}), ...options.config },
    });
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
    t.ctx.agentSync = recordingSync;
    const admin = await givenAdmin(t.ctx, { userName: 'ops' });
    const cookie = await signInAdmin(t.app, 'ops', admin.password);
    const agent = await givenAgent(t.ctx, { name: 'edge', capabilities: agentCapabilities(), version: '1.9.0' });
    current = { t, cookie, agent };
  });
  afterEach(async () => {
    const closing = current;
    current = undefined;
    await closing?.t.close();
  });
  const call: AdminApiWorld['call'] = (method, url, payload) => {
    const { t, cookie } = now();
    return t.app.inject({ method, url, headers: { cookie }, ...(payload === undefined ? {} : { payload }) });
  };
  const refusal: AdminApiWorld['refusal'] = (response) => ({
    status: response.statusCode,
    ...response.json<{ Err: string; Extra?: string }>(),
  });
  return extendWorld(liveView(now, ['t', 'agent']), { agentsChanged, call, refusal });
}
