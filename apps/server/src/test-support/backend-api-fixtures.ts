import { expect } from 'vitest';
import type { BackendRecord } from '@postern/protocol';
import type { TestStoreKind } from './test-app.js';
import { useAdminApiWorld, type AdminApiWorld } from './admin-api-world.js';
import { extendWorld } from './test-world.js';

/** A Fortinet backend's config, with its secret. */
export const FORTIOS = { Url: 'https://fw.example.net', Bearer: 'bearer-secret-1', VDOM: 'root' };

/** The world of the backends API tests: an unlicensed AdminApiWorld, a call to create a backend and a read of its stored config. */
export interface BackendsApiWorld extends AdminApiWorld {
  /** Creates the backend, expecting 200, and answers it. */
  readonly createOk: (payload: object) => Promise<BackendRecord>;
  /** The backend's config column as the store holds it (secrets sealed, fields of its one type). */
  readonly storedConfig: (id: string) => Promise<Record<string, unknown>>;
}

/** Registers the hooks of a BackendsApiWorld (see useAdminApiWorld). */
export function useBackendsApiWorld(kind: TestStoreKind): BackendsApiWorld {
  const world = useAdminApiWorld(kind);
  return extendWorld<AdminApiWorld, Omit<BackendsApiWorld, keyof AdminApiWorld>>(world, {
    createOk: async (payload) => {
      const response = await world.call('POST', '/api/admin/backends', payload);
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{ data: BackendRecord }>().data;
    },
    storedConfig: async (id) => {
      const row = await world.t.ctx.db
        .selectFrom('backends')
        .select('config')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return JSON.parse(row.config) as Record<string, unknown>;
    },
  });
}
