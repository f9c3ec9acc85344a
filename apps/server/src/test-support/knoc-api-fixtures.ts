import { beforeEach, expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { KnocRecord } from '@postern/protocol';
import type { TestStoreKind } from './test-app.js';
import { givenBackend } from './knoc-factories.js';
import { useAdminApiWorld, type AdminApiWorld } from './admin-api-world.js';
import { extendWorld } from './test-world.js';
import { uuidv7 } from '../lib/ids.js';
import { hashApiKey } from '../apikeys/apikeys.service.js';

/** A UriToken or allowlist Token: base64url. */
export const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * The world of the knocs API tests (/api/admin/acls): a licensed AdminApiWorld with an ipset backend
 * 'edge sets' on the agent and a published allowlist backend, and calls for the knocs there.
 */
export interface KnocsApiWorld extends AdminApiWorld {
  readonly sets: { id: string; name: string };
  readonly published: { id: string; name: string };
  /** An ipset knoc 'SSH bastion' on `sets`, with `extra` over it. */
  readonly ipsetKnoc: (extra?: object) => object;
  readonly create: (payload: object) => Promise<LightMyRequestResponse>;
  /** Creates the knoc, expecting 200, and answers its id. */
  readonly createOk: (payload: object) => Promise<string>;
  readonly getOk: (id: string) => Promise<KnocRecord>;
  readonly update: (id: string, payload: object) => Promise<LightMyRequestResponse>;
}

/** Registers the hooks of a KnocsApiWorld (see useAdminApiWorld). */
export function useKnocsApiWorld(kind: TestStoreKind): KnocsApiWorld {
  const world = useAdminApiWorld(kind, { licensed: true });
  let backends: { sets: KnocsApiWorld['sets']; published: KnocsApiWorld['published'] } | undefined;
  beforeEach(async () => {
    const sets = await givenBackend(world.t.ctx, { type: 'ipset', agentId: world.agent.id, name: 'edge sets' });
    const published = await givenBackend(world.t.ctx, { type: 'allowlist', name: 'published' });
    backends = { sets, published };
  });
  const now = () => {
    if (backends === undefined) throw new Error('the knocs API world exists only inside a test');
    return backends;
  };
  const { call } = world;
  const create = (payload: object) => call('POST', '/api/admin/acls', payload);
  return extendWorld<AdminApiWorld, Omit<KnocsApiWorld, keyof AdminApiWorld>>(world, {
    get sets() {
      return now().sets;
    },
    get published() {
      return now().published;
    },
    ipsetKnoc: (extra = {}) => ({
      Description: 'SSH bastion',
      BackendID: now().sets.id,
      Config: { ipset: { V4SetName: 'postern4' } },
      ...extra,
    }),
    create,
    createOk: async (payload) => {
      const response = await create(payload);
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{ data: { ID: string } }>().data.ID;
    },
    getOk: async (id) => {
      const response = await call('GET', `/api/admin/acls/${id}`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{ data: KnocRecord }>().data;
    },
    update: (id, payload) => call('PUT', `/api/admin/acls/${id}`, { ID: id, ...payload }),
  });
}

/** Where the wizard's allowlist URLs point. */
export const WIZARD_PUBLIC_URL = 'https://postern.example.net';

/** What POST /api/admin/knocs answers. */
export interface WizardAnswer {
  KnocID: string;
  ApiKey: { ID: string; Name: string; PlaintextKey: string } | null;
  AllowlistURL: string | null;
  Knoc: KnocRecord;
}

/**
 * The world of the knoc wizard API tests (/api/admin/knocs): a licensed AdminApiWorld whose server
 * knows its public URL, with the wizard's bodies and the rows its tests need.
 */
export interface KnocWizardWorld extends AdminApiWorld {
  /** Runs the wizard, expecting 200, and answers what it made. */
  readonly createOk: (payload: object) => Promise<WizardAnswer>;
  readonly givenGroup: (name: string) => Promise<string>;
  readonly givenApiKey: (name: string, scopes: string[]) => Promise<string>;
  readonly scopesOf: (keyId: string) => Promise<string[]>;
  /** Every table the wizard writes, to show a failed run left nothing behind. */
  readonly snapshot: () => Promise<Record<string, unknown[]>>;
  /** An ipset backend 'edge sets' on the agent with a knoc 'SSH', with `extra` over the body. */
  readonly linux: (extra?: object) => { Backend: object; Knoc: object };
  /** A published allowlist 'Partner firewall' read with `apiKey`. */
  readonly passive: (apiKey: object, knocFields?: object) => object;
  /** A passive knoc with a new key and a PAN-OS passive+ backend on the agent, with `extra` over it. */
  readonly passivePlus: (extra?: object) => { PassivePlus: { Backend: object; Config: object } };
}

/** Registers the hooks of a KnocWizardWorld (see useAdminApiWorld). */
export function useKnocWizardWorld(kind: TestStoreKind): KnocWizardWorld {
  const world = useAdminApiWorld(kind, { licensed: true, config: { publicUrl: WIZARD_PUBLIC_URL } });
  const db = () => world.t.ctx.db;
  const passive = (apiKey: object, knocFields: object = {}) => ({
    Backend: { Name: 'published', Config: { allowlist: {} } },
    ApiKey: apiKey,
    Knoc: { Description: 'Partner firewall', Config: { allowlist: knocFields } },
  });
  return extendWorld<AdminApiWorld, Omit<KnocWizardWorld, keyof AdminApiWorld>>(world, {
    createOk: async (payload) => {
      const response = await world.call('POST', '/api/admin/knocs', payload);
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{ data: WizardAnswer }>().data;
    },
    givenGroup: async (name) => {
      const now = world.t.clock.now();
      const id = uuidv7(now);
      await db()
        .insertInto('groups')
        .values({ id, name, description: '', type: 'local', createdAt: now, updatedAt: now })
        .execute();
      return id;
    },
    givenApiKey: async (name, scopes) => {
      const id = uuidv7(world.t.clock.now());
      await db()
        .insertInto('apiKeys')
        .values({
          id,
          name,
          keyHash: hashApiKey(`key-${id}`),
          scopes: JSON.stringify(scopes),
          allowedFrom: '[]',
          expiresAt: null,
          createdAt: world.t.clock.now(),
          lastUsedAt: null,
        })
        .execute();
      return id;
    },
    scopesOf: async (keyId) => {
      const row = await db().selectFrom('apiKeys').select('scopes').where('id', '=', keyId).executeTakeFirstOrThrow();
      return JSON.parse(row.scopes) as string[];
    },
    snapshot: async () => ({
      backends: await db().selectFrom('backends').selectAll().orderBy('id').execute(),
      knocs: await db().selectFrom('knocs').selectAll().orderBy('id').execute(),
      apiKeys: await db().selectFrom('apiKeys').selectAll().orderBy('id').execute(),
      userAcls: await db().selectFrom('userAcls').selectAll().orderBy('userId').orderBy('aclId').execute(),
      groupAcls: await db().selectFrom('groupAcls').selectAll().orderBy('groupId').orderBy('aclId').execute(),
      audit: await db().selectFrom('auditLog').selectAll().orderBy('id').execute(),
    }),
    linux: (extra = {}) => ({
      Backend: { Name: 'edge sets', AgentID: world.agent.id, Config: { ipset: {} } },
      Knoc: { Description: 'SSH', Config: { ipset: { V4SetName: 'postern4' } } },
      ...extra,
    }),
    passive,
    passivePlus: (extra = {}) => ({
      ...passive({ Option: 'new', Name: 'pan key' }),
      PassivePlus: {
        Backend: {
          Name: 'pan refresh',
          AgentID: world.agent.id,
          Config: { panos: { Hostname: 'pan.example.net', ApiKey: 'pan-secret' } },
        },
        Config: { panos: { EDLName: 'postern-edl', MapUser: true } },
      },
      ...extra,
    }),
  });
}
