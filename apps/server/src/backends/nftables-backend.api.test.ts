import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import type { LightMyRequestResponse } from 'fastify';
import { useAdminApiWorld } from '../test-support/admin-api-world.js';
import { agentCapabilities, givenAgent } from '../test-support/agent-factories.js';

// The nftables backend's rules: where its knocs' sets must be (the backend's family and table, as
// the agent reported them, with flags timeout), and who can drive it.
describe('nftables backends and their knocs (sqlite)', () => {
  const world = useAdminApiWorld('sqlite', { licensed: true });
  const { call, refusal } = world;
  const createOk = async (payload: object) => {
    const response: LightMyRequestResponse = await call('POST', '/api/admin/backends', payload);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ data: { ID: string; Config: unknown } }>().data;
  };
  const agentId = () => world.agent.id;
  const nftablesBackend = (Table = 'postern', Family = 'inet') =>
    createOk({ Name: 'nft', AgentID: agentId(), Config: { nftables: { Table, Family } } });
  const knoc = (backendId: string, fields: Record<string, string>) =>
    call('POST', '/api/admin/acls', {
      Description: 'SSH',
      BackendID: backendId,
      Config: { nftables: fields },
    });

  it('defaults the family to inet and takes a knoc on sets the agent reported with flags timeout', async () => {
    const backend = await nftablesBackend();
    expect(backend.Config).toEqual({ nftables: { Family: 'inet', Table: 'postern' } });
    const response = await knoc(backend.ID, { V4SetName: 'postern4', V6SetName: 'postern6' });
    expect(response.statusCode, response.body).toBe(200);
  });

  it.each([
    ['a set of another table', 'postern', 'inet', { V4SetName: 'other' }, 'other'],
    ['an IPv6 set named as the IPv4 one', 'postern', 'inet', { V4SetName: 'postern6' }, 'postern6'],
    ['a set without flags timeout', 'postern', 'inet', { V4SetName: 'forever4' }, 'forever4'],
    ['a set of the same name in another family', 'legacy', 'inet', { V4SetName: 'postern4' }, 'postern4'],
  ])('refuses %s (err.nftablesSetNotAllowed)', async (_case, table, family, fields, name) => {
    const backend = await nftablesBackend(table, family);
    expect(refusal(await knoc(backend.ID, fields))).toEqual({
      status: 400,
      Err: ErrorCodes.nftablesSetNotAllowed,
      Extra: name,
    });
  });

  it('refuses a table name nft would need quoted', async () => {
    const response = await call('POST', '/api/admin/backends', {
      Name: 'nft',
      AgentID: agentId(),
      Config: { nftables: { Table: 'my table' } },
    });
    expect(refusal(response)).toMatchObject({ status: 400, Err: ErrorCodes.nftablesInvalidName });
  });

  it('refuses moving the backend to a table that lacks its knocs’ sets, and takes one that has them', async () => {
    const backend = await nftablesBackend();
    expect((await knoc(backend.ID, { V4SetName: 'postern4' })).statusCode).toBe(200);
    const move = (Table: string, Family: string) =>
      call('PUT', `/api/admin/backends/${backend.ID}`, {
        ID: backend.ID,
        Name: 'nft',
        AgentID: agentId(),
        Config: { nftables: { Table, Family } },
      });
    expect(refusal(await move('elsewhere', 'inet'))).toEqual({
      status: 400,
      Err: ErrorCodes.nftablesSetNotAllowed,
      Extra: 'postern4',
    });
    const moved = await move('legacy', 'ip');
    expect(moved.statusCode, moved.body).toBe(200);
  });

  it('refuses an agent that has no nft (err.agentIncapable, nftablesNoCommand)', async () => {
    const older = await givenAgent(world.t.ctx, {
      capabilities: agentCapabilities({ nftables: undefined }),
    });
    const response = await call('POST', '/api/admin/backends', {
      Name: 'nft',
      AgentID: older.id,
      Config: { nftables: { Table: 'postern' } },
    });
    expect(refusal(response)).toEqual({
      status: 400,
      Err: ErrorCodes.agentIncapable,
      Extra: ErrorCodes.nftablesNoCommand,
    });
  });
});
