import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { api } from './client';

/** An entity's id as it appears in its path (`/admin/agents/:id`). */
export type ResourceId = string | number;

/** What {@link createResourceApi} needs to know of one admin entity. */
export interface ResourceConfig<
  ListSchema extends z.ZodType,
  ItemSchema extends z.ZodType,
  CreateBody,
  UpdateBody,
  CreatedSchema extends z.ZodType,
> {
  /** The first part of every query key of the entity ("agents"). */
  key: string;
  /** The collection's API path without /api ("/admin/agents"); an item is `${path}/${id}`. */
  path: string;
  /** The list answer's schema. */
  list: ListSchema;
  /** One item's answer schema. */
  item: ItemSchema;
  /**
   * Only type the create and update bodies as the schemas' input, what the server reads (pass the
   * protocol's `…CreateBody` schema); never parsed.
   */
  create?: z.ZodType<unknown, CreateBody>;
  update?: z.ZodType<unknown, UpdateBody>;
  /**
   * The create answer's `data` schema: `useCreate` then resolves to the parsed answer (the new
   * record, a one-time secret). Without it the answer is passed on unread.
   */
  created?: CreatedSchema;
}

/**
 * Query keys, list and item queries, and create, update and delete mutations for one admin
 * entity. Every mutation refreshes the entity's queries when it settles, after a failure too, since
 * a refused delete may mean someone else changed the list.
 */
export function createResourceApi<
  ListSchema extends z.ZodType,
  ItemSchema extends z.ZodType,
  CreateBody = unknown,
  UpdateBody = unknown,
  CreatedSchema extends z.ZodType = z.ZodUnknown,
>(config: ResourceConfig<ListSchema, ItemSchema, CreateBody, UpdateBody, CreatedSchema>) {
  const { key, path, list, item, created } = config;
  const itemPath = (id: ResourceId) => `${path}/${encodeURIComponent(String(id))}`;

  const keys = {
    all: [key] as const,
    list: () => [key, 'list'] as const,
    item: (id: ResourceId) => [key, 'item', id] as const,
  };

  /** Mutation options that refresh every query of the entity once the call has settled. */
  function useRefreshing() {
    const queryClient = useQueryClient();
    return { onSettled: () => queryClient.invalidateQueries({ queryKey: keys.all }) };
  }

  return {
    keys,
    /** The whole collection. */
    useList: (options: { refetchInterval?: number | false } = {}) =>
      useQuery({
        queryKey: keys.list(),
        queryFn: ({ signal }) => api.get(path, list, { signal }),
        refetchInterval: options.refetchInterval ?? false,
      }),
    /** One item; waits while `id` is undefined. */
    useItem: (id: ResourceId | undefined) =>
      useQuery({
        queryKey: keys.item(id ?? ''),
        queryFn: ({ signal }) => api.get(itemPath(id ?? ''), item, { signal }),
        enabled: id !== undefined,
      }),
    /** POST to the collection; resolves to the answer, parsed with `created` when given. */
    useCreate: () =>
      useMutation({ mutationFn: (body: CreateBody) => api.post(path, body, created), ...useRefreshing() }),
    /** PUT to an item. */
    useUpdate: () =>
      useMutation({
        mutationFn: ({ id, body }: { id: ResourceId; body: UpdateBody }) => api.put(itemPath(id), body),
        ...useRefreshing(),
      }),
    /** DELETE an item. */
    useDelete: () => useMutation({ mutationFn: (id: ResourceId) => api.delete(itemPath(id)), ...useRefreshing() }),
  };
}
