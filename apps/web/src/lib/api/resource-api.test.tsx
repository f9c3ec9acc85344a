import { renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createQueryClient } from '@/app/query-client';
import { installFakeApi } from '@/test-support/fake-api';
import { ApiError } from './api-error';
import { createResourceApi } from './resource-api';

const Agent = z.object({ ID: z.number(), Name: z.string() });
const AgentCreateBody = z.object({ Name: z.string() });

const agentsConfig = {
  key: 'agents',
  path: '/admin/agents',
  list: z.array(Agent),
  item: Agent,
  create: AgentCreateBody,
  update: AgentCreateBody,
};
const agents = createResourceApi(agentsConfig);

function wrapper() {
  const queryClient = createQueryClient();
  const Wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  );
  return { queryClient, wrapper: Wrapper };
}

describe('createResourceApi', () => {
  it('names every query of the entity under its key', () => {
    expect(agents.keys.all).toEqual(['agents']);
    expect(agents.keys.list()).toEqual(['agents', 'list']);
    expect(agents.keys.item(7)).toEqual(['agents', 'item', 7]);
  });

  it('lists the collection and reads one item', async () => {
    installFakeApi({
      'GET /api/admin/agents': { body: { data: [{ ID: 1, Name: 'edge' }] } },
      'GET /api/admin/agents/1': { body: { data: { ID: 1, Name: 'edge' } } },
    });
    const { wrapper: Wrapper } = wrapper();
    const list = renderHook(() => agents.useList(), { wrapper: Wrapper });
    const item = renderHook(() => agents.useItem(1), { wrapper: Wrapper });
    await waitFor(() => expect(list.result.current.data).toEqual([{ ID: 1, Name: 'edge' }]));
    await waitFor(() => expect(item.result.current.data).toEqual({ ID: 1, Name: 'edge' }));
  });

  it('does not ask for an item without an id', () => {
    const api = installFakeApi();
    const { wrapper: Wrapper } = wrapper();
    renderHook(() => agents.useItem(undefined), { wrapper: Wrapper });
    expect(api.requests).toHaveLength(0);
  });

  it('refreshes the list after a create and an update', async () => {
    let names = ['edge'];
    const api = installFakeApi({
      'GET /api/admin/agents': () => ({ body: { data: names.map((Name, index) => ({ ID: index + 1, Name })) } }),
      'POST /api/admin/agents': () => {
        names = [...names, 'core'];
        return { body: { data: null } };
      },
      'PUT /api/admin/agents/2': { body: { data: null } },
    });
    const { wrapper: Wrapper } = wrapper();
    const list = renderHook(() => agents.useList(), { wrapper: Wrapper });
    await waitFor(() => expect(list.result.current.data).toHaveLength(1));
    const create = renderHook(() => agents.useCreate(), { wrapper: Wrapper });
    await create.result.current.mutateAsync({ Name: 'core' });
    await waitFor(() => expect(list.result.current.data).toHaveLength(2));
    expect(api.calls('POST /api/admin/agents')[0]?.body).toEqual({ Name: 'core' });

    const update = renderHook(() => agents.useUpdate(), { wrapper: Wrapper });
    await update.result.current.mutateAsync({ id: 2, body: { Name: 'core-2' } });
    await waitFor(() => expect(api.calls('GET /api/admin/agents')).toHaveLength(3));
  });

  it.each([
    ['the new record', { ID: 3, Name: 'core' }, { ID: 3, Name: 'core' }],
    ['a refusal when the answer breaks the schema', { ID: 'three' }, null],
  ])('resolves a create to its answer parsed with `created`: %s', async (_case, answer, expected) => {
    installFakeApi({ 'POST /api/admin/agents': { body: { data: answer } } });
    const reading = createResourceApi({ ...agentsConfig, created: Agent });
    const { wrapper: Wrapper } = wrapper();
    const create = renderHook(() => reading.useCreate(), { wrapper: Wrapper });
    const outcome = create.result.current.mutateAsync({ Name: 'core' });
    if (expected === null) await expect(outcome).rejects.toBeInstanceOf(ApiError);
    else await expect(outcome).resolves.toEqual(expected);
  });

  it('refreshes the list after a failed delete too', async () => {
    const api = installFakeApi({
      'GET /api/admin/agents': { body: { data: [{ ID: 1, Name: 'edge' }] } },
      'DELETE /api/admin/agents/1': { status: 409, body: { Err: 'err.agentHasBackends' } },
    });
    const { wrapper: Wrapper } = wrapper();
    const list = renderHook(() => agents.useList(), { wrapper: Wrapper });
    await waitFor(() => expect(list.result.current.data).toHaveLength(1));
    const remove = renderHook(() => agents.useDelete(), { wrapper: Wrapper });
    await expect(remove.result.current.mutateAsync(1)).rejects.toBeInstanceOf(ApiError);
    await waitFor(() => expect(api.calls('GET /api/admin/agents')).toHaveLength(2));
  });
});
