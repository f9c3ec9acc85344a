import { afterEach, beforeEach, expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { GrantStatus, type AclEntry, type UserStatus } from '@postern/protocol';
import { waitFor } from '@postern/test-support';
import type { AppContext } from '../app-context.js';
import type { TestStoreKind } from './test-app.js';
import { useTestApp, type LiveTestApp } from './use-test-app.js';
import { givenUser } from './factories.js';
import { givenAgent } from './agent-factories.js';
import { givenLicence, TEST_LICENCE_KEYS } from './licence.js';
import { FakeAgent } from './fake-agent.js';
import { givenUserSession } from './sessions.js';
import { givenBackend, givenEnforcedKnoc } from './knoc-factories.js';
import { extendWorld, liveView } from './test-world.js';

/** Where alice's browser is, unless a test says otherwise (RFC 5737: loopback is never granted). */
export const ALICE_ADDRESS = '192.0.2.1';

export interface KnocOptions {
  clickToGrant?: boolean;
  cgnatOpen?: boolean;
  maximumGrantDuration?: number;
  ipExclusions?: {
    RestrictionType: 'none' | 'RFC1918' | 'allowList' | 'denyList';
    RfcType: 'allow' | 'deny';
    Ranges: [];
  };
  grantType?: { Type: 'userIp' | 'specifiedIps'; Ips: { Ip: string }[] };
  /** Give the knoc to the user directly (default) or not at all (a group will). */
  direct?: boolean;
}

/** An ipset knoc on the agent, given to the user directly unless `direct` is false. */
export async function givenIpsetKnoc(ctx: AppContext, agentId: string, userId: string, options: KnocOptions = {}) {
  const backend = await givenBackend(ctx, { type: 'ipset', agentId });
  const knoc = await givenEnforcedKnoc(ctx, {
    backendId: backend.id,
    type: 'ipset',
    aclConfig: { V4SetName: 'postern4', V6SetName: 'postern6' },
    options: {
      ClickToGrant: options.clickToGrant ?? true,
      CGNATOpen: options.cgnatOpen ?? false,
      MaximumGrantDuration: options.maximumGrantDuration ?? 0,
      ...(options.ipExclusions === undefined ? {} : { IpExclusions: options.ipExclusions }),
      ...(options.grantType === undefined ? {} : { GrantType: options.grantType }),
    },
  });
  // A known UriToken, so the auto-browse test can name the URL it expects.
  await ctx.db.updateTable('knocs').set({ uriToken: 'uri-token-1' }).where('id', '=', knoc.id).execute();
  if (options.direct !== false) await ctx.db.insertInto('userAcls').values({ userId, aclId: knoc.id }).execute();
  return knoc.id;
}

/** A signed-in browser session of alice's and the address it calls from. */
export interface Browser {
  cookie: string;
  address: string;
}

/**
 * The world of the grant engine tests: a licensed app listening on a port (one per file, reset
 * before each test: useTestApp), and made afresh for each test a user 'alice', an agent 'edge' with
 * a FakeAgent for it (not yet connected), and what alice's browser calls.
 */
export interface GrantEngineWorld {
  readonly t: LiveTestApp;
  readonly agent: FakeAgent;
  readonly agentId: string;
  readonly userId: string;
  /** Where the app listens. */
  readonly baseUrl: string;
  /** A new session of alice's (written into the store: grants, not signing in, are the subject here). */
  readonly signIn: (address?: string) => Promise<Browser>;
  readonly status: (who: Browser) => Promise<UserStatus>;
  /** The knoc as alice's status shows it; throws when it is not there. */
  readonly aclOf: (who: Browser, aclId: string) => Promise<AclEntry>;
  readonly grant: (who: Browser, aclId: string, IPs?: object[]) => Promise<LightMyRequestResponse>;
  readonly revoke: (who: Browser, aclId: string) => Promise<LightMyRequestResponse>;
  /**
   * Waits until the agent's answers are recorded: the hub has sent what was queued, and no grant
   * waits for its agent any more (none Pending or Revoking). Polls with a deadline, never a blind sleep.
   */
  readonly settle: () => Promise<void>;
}

/** Registers the beforeEach and afterEach that make and close a GrantEngineWorld; read its fields in tests. */
export function useGrantEngineWorld(kind: TestStoreKind): GrantEngineWorld {
  const t = useTestApp(kind, { config: { licencePublicKeys: TEST_LICENCE_KEYS }, listen: true });
  let current: { t: LiveTestApp; agent: FakeAgent; agentId: string; userId: string; baseUrl: string } | undefined;
  const now = () => {
    if (current === undefined) throw new Error('the grant engine world exists only inside a test');
    return current;
  };
  beforeEach(async () => {
    await givenLicence(t.ctx);
    const user = await givenUser(t.ctx, { userName: 'alice' });
    const created = await givenAgent(t.ctx, { name: 'edge' });
    const agent = new FakeAgent(t.baseUrl, created.token);
    current = { t, agent, agentId: created.id, userId: user.id, baseUrl: t.baseUrl };
  });
  afterEach(async () => {
    const closing = current;
    current = undefined;
    await closing?.agent.disconnect();
  });

  const signIn = (address = ALICE_ADDRESS) =>
    givenUserSession(now().t, { id: now().userId }).then((cookie) => ({ cookie, address }));
  const status = async (who: Browser) => {
    const response = await now().t.app.inject({
      method: 'GET',
      url: '/api/status',
      headers: { cookie: who.cookie },
      remoteAddress: who.address,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ data: UserStatus }>().data;
  };
  const aclOf = async (who: Browser, aclId: string) => {
    const acl = (await status(who)).ACLs.find((entry) => entry.ACLID === aclId);
    if (acl === undefined) throw new Error('ACL not in status');
    return acl;
  };
  const grant = (who: Browser, aclId: string, IPs: object[] = []) =>
    now().t.app.inject({
      method: 'POST',
      url: '/api/grant',
      headers: { cookie: who.cookie },
      remoteAddress: who.address,
      payload: { ACLID: aclId, IPs },
    });
  const revoke = (who: Browser, aclId: string) =>
    now().t.app.inject({
      method: 'DELETE',
      url: `/api/sessions/current/granted-acls/${aclId}`,
      headers: { cookie: who.cookie },
      remoteAddress: who.address,
    });
  const settle = async () => {
    const { t } = now();
    await waitFor(async () => {
      await t.hub.idle();
      const waiting = await t.ctx.db
        .selectFrom('grants')
        .select('id')
        .where('status', 'in', [GrantStatus.Pending, GrantStatus.Revoking])
        .execute();
      return waiting.length === 0;
    }, "the agent's results to be recorded");
    await t.hub.idle();
  };

  return extendWorld(liveView(now, ['t', 'agent', 'agentId', 'userId', 'baseUrl']), {
    signIn,
    status,
    aclOf,
    grant,
    revoke,
    settle,
  });
}
