import { describe, expect, it } from 'vitest';
import { AgentListResponse, AgentResponse, ErrorCodes } from '@postern/protocol';
import { newAgentRecord } from './records/agents';
import { apiError, data, EMPTY_OK, installTypedFakeApi } from './typed-fake-api';

const jsonOf = async (response: Response) => (await response.json()) as unknown;

describe('installTypedFakeApi', () => {
  it('answers routes with their status and JSON body, and records the requests', async () => {
    const api = installTypedFakeApi({
      'GET /api/admin/agents': data(AgentListResponse, [newAgentRecord()]),
      'DELETE /api/admin/agents/:id': EMPTY_OK,
    });

    const list = await fetch('/api/admin/agents?page=2');
    expect(list.status).toBe(200);
    expect(await jsonOf(list)).toEqual({ data: [newAgentRecord()] });
    expect((await fetch('/api/admin/agents/a1', { method: 'DELETE' })).status).toBe(200);

    expect(api.calls('GET /api/admin/agents')[0]?.query.get('page')).toBe('2');
    expect(api.calls('DELETE /api/admin/agents/:id').map((request) => request.params)).toEqual([{ id: 'a1' }]);
  });

  it('passes path parameters and the JSON body to a handler, and prefers exact paths', async () => {
    installTypedFakeApi({
      'PUT /api/admin/agents/:id': ({ params, body }) =>
        data(AgentResponse, newAgentRecord({ ID: params.id ?? '', Name: (body as { Name: string }).Name })),
      'PUT /api/admin/agents/special': apiError(409, ErrorCodes.conflict, 'Name'),
    });

    const updated = await fetch('/api/admin/agents/a%2F7', { method: 'PUT', body: JSON.stringify({ Name: 'core' }) });
    expect(await jsonOf(updated)).toEqual({ data: newAgentRecord({ ID: 'a/7', Name: 'core' }) });
    const refused = await fetch('/api/admin/agents/special', { method: 'PUT', body: '{}' });
    expect(refused.status).toBe(409);
    expect(await jsonOf(refused)).toEqual({ Err: 'err.conflict', Extra: 'Name' });
  });

  it('answers the calls every admin page makes, with an admin signed in unless told otherwise', async () => {
    installTypedFakeApi();
    const status = (await jsonOf(await fetch('/api/admin/status'))) as { data: { UserName: string } };
    expect(status.data.UserName).toBe('grace');
    expect((await fetch('/api/theme')).status).toBe(200);

    installTypedFakeApi({}, { admin: false });
    expect((await fetch('/api/admin/status')).status).toBe(401);
  });

  it('refuses a fixture that does not match the protocol where it is built', () => {
    // @ts-expect-error -- Online is a boolean in the protocol: the fixture is refused by the type checker too.
    expect(() => data(AgentListResponse, [{ ...newAgentRecord(), Online: 'yes' }])).toThrow(/Online/);
  });

  it('simulates a network failure with an Error', async () => {
    installTypedFakeApi({ 'GET /api/admin/agents': new TypeError('Failed to fetch') });
    await expect(fetch('/api/admin/agents')).rejects.toThrow('Failed to fetch');
  });

  it('answers an unknown request 501 and fails the test loudly, naming it', async () => {
    const api = installTypedFakeApi();
    const response = await fetch('/api/admin/groups?q=x', { method: 'POST' });
    expect(response.status).toBe(501);
    expect(api.unmatched).toEqual(['POST /api/admin/groups?q=x']);
    expect(() => api.assertAllMatched()).toThrow(/no route for: POST \/api\/admin\/groups\?q=x/);
    // The same check runs when the test finishes; forget the request so this test passes.
    api.unmatched.length = 0;
  });
});
