import { beforeEach, describe, expect, it } from 'vitest';
import { AgentListResponse, AgentResponse, ErrorCodes, type AgentRecord } from '@postern/protocol';
import { useTestApp } from './use-test-app.js';
import { givenAdmin, givenUser } from './factories.js';
import { givenAdminSession, givenUserSession } from './sessions.js';
import { adminClient, type AdminClient } from './admin-client.js';

describe('adminClient (sqlite)', () => {
  const t = useTestApp('sqlite');
  let cookie: string;
  let admin: AdminClient;
  beforeEach(async () => {
    const account = await givenAdmin(t.ctx, { userName: 'ops' });
    cookie = await givenAdminSession(t, account);
    admin = adminClient(t.app, cookie);
  });

  it('creates, reads, updates and deletes through the admin API with status and parsed JSON', async () => {
    const created = await admin.post<{ data: AgentRecord }>('/api/admin/agents', { Name: 'edge-fw' });
    expect(created.status).toBe(200);
    const id = created.body.data.ID;
    expect(created.body.data.Name).toBe('edge-fw');

    const read = await admin.get<{ data: AgentRecord }>(`/api/admin/agents/${id}`);
    expect(read).toMatchObject({ status: 200, body: { data: { ID: id, Name: 'edge-fw' } } });

    const updated = await admin.put<{ data: AgentRecord }>(`/api/admin/agents/${id}`, { ID: id, Name: 'core-fw' });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.data.Name).toBe('core-fw');

    expect(await admin.delete(`/api/admin/agents/${id}`)).toMatchObject({ status: 200, body: { data: null } });
    expect(await admin.get(`/api/admin/agents/${id}`)).toMatchObject({
      status: 404,
      body: { Err: ErrorCodes.notFound },
    });
  });

  it('returns data checked against a protocol schema, and throws on a failure', async () => {
    await admin.post('/api/admin/agents', { Name: 'edge-fw' });
    const agents: AgentRecord[] = await admin.data('GET', '/api/admin/agents', AgentListResponse);
    expect(agents.map((agent) => agent.Name)).toEqual(['edge-fw']);

    await expect(admin.data('POST', '/api/admin/agents', AgentResponse, { Name: '' })).rejects.toThrow(
      /POST \/api\/admin\/agents answered 400/,
    );
  });

  it('sends a same-origin Origin on state changes, which the cross-site guard lets through', async () => {
    const fromElsewhere = adminClient(t.app, cookie, { origin: 'https://evil.example' });
    expect(await fromElsewhere.post('/api/admin/agents', { Name: 'x' })).toMatchObject({
      status: 403,
      body: { Err: ErrorCodes.forbiddenOrigin },
    });
    const created = await admin.post('/api/admin/agents', { Name: 'x' });
    expect(created.status).toBe(200);
    expect(created.response.raw.req.headers.origin).toBe('http://postern.test');
  });

  it('is refused without an admin session', async () => {
    const user = await givenUser(t.ctx, { userName: 'alice' });
    const asUser = adminClient(t.app, await givenUserSession(t, user));
    expect((await asUser.get('/api/admin/agents')).status).toBe(401);
  });
});
