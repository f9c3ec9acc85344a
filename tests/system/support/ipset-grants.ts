import { waitFor } from '@postern/test-support';
import type { AdminApi } from './admin-api.js';
import { SET_NAME, type GrantTopology } from './grant-topology.js';
import type { PosternServer } from './postern-server.js';

/** A signed-in user seen by the server at `address` (through a trusted proxy header). */
export interface UserSession {
  cookie: string;
  address: string;
}

/** The user API as a browser at `address` uses it (the server trusts 127.0.0.1's X-Forwarded-For). */
export class UserClient {
  constructor(private readonly server: PosternServer) {}

  async signIn(userName: string, password: string, address: string): Promise<UserSession> {
    const response = await fetch(`${this.server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify({ UserName: userName, Password: password, KioskMode: false }),
    });
    if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
    const cookie = response.headers.getSetCookie().find((value) => value.startsWith('__Host-postern_session='));
    return { cookie: cookie?.split(';')[0] ?? '', address };
  }

  async call(session: UserSession, method: string, url: string, body?: unknown) {
    const response = await fetch(`${this.server.url}${url}`, {
      method,
      headers: {
        cookie: session.cookie,
        'x-forwarded-for': session.address,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${text}`);
    return JSON.parse(text) as { data: { ACLs?: { ACLID: string; Status: number; ExpiredAfter: string | null }[] } };
  }
}

/** A new agent in the admin console: its id and its enrolment token. */
export async function createAgent(admin: AdminApi, name: string): Promise<{ id: string; token: string }> {
  const created = await admin.call<{ ID: string; Token: string }>('POST', '/api/admin/agents', { Name: name });
  return { id: created.ID, token: created.Token };
}

/** Waits until the server has the agent online and knows its capabilities. */
export async function agentOnline(admin: AdminApi, agentId: string): Promise<void> {
  await waitFor(
    async () => {
      const seen = await admin.call<{ Online: boolean; Capabilities: unknown }>('GET', `/api/admin/agents/${agentId}`);
      return seen.Online && seen.Capabilities !== null;
    },
    'the agent to connect and report its capabilities',
    20_000,
  );
}

/**
 * An ipset backend on the agent and a knoc on the topology's set, with `fields` of the knoc
 * (MaximumGrantDuration…); returns the knoc's id.
 */
export async function createIpsetKnoc(
  admin: AdminApi,
  agentId: string,
  fields: Record<string, unknown> = {},
): Promise<string> {
  const backend = await admin.call<{ ID: string }>('POST', '/api/admin/backends', {
    Name: 'protected host ipset',
    AgentID: agentId,
    Config: { ipset: {} },
  });
  const acl = await admin.call<{ ID: string }>('POST', '/api/admin/acls', {
    Description: 'Protected service',
    BackendID: backend.ID,
    Config: { ipset: { V4SetName: SET_NAME } },
    ...fields,
  });
  return acl.ID;
}

/** Local users (no second factor, sessions of `durationMinutes`) in one group that gives them `aclIds`. */
export async function createUsersWithKnocs(
  admin: AdminApi,
  users: { userName: string; password: string; durationMinutes: number }[],
  aclIds: string[],
): Promise<void> {
  const ids: string[] = [];
  for (const user of users) {
    const created = (await admin.createLocalUser(user.userName, user.password, {
      TOTPEnabled: false,
      Duration: user.durationMinutes,
    })) as { User: { ID: string } };
    ids.push(created.User.ID);
  }
  await admin.call('POST', '/api/admin/groups', {
    Name: 'protected service users',
    Type: 'local',
    ACLIDs: aclIds,
    UserIDs: ids,
  });
}

/** Waits until a TCP connection from `address` in the client namespace gets through. */
export function opensFor(topology: GrantTopology, address: string): Promise<void> {
  return waitFor(() => topology.canConnect(address), `${address} to get through`, 10_000);
}
