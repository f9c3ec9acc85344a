import { openStore } from '../../../apps/server/src/store/store.js';
import type { StoreLocation } from './postern-server.js';

/**
 * Makes a user's running sessions end `inMs` from now, by writing that end into the store the server
 * reads it from on every request. The shortest Duration a user can be given is a minute; this lets a
 * test of what happens when a session ends wait seconds instead. Call it before granting: a grant
 * ends with the session it was made in. Returns the new end (epoch milliseconds).
 */
export async function endSessionsSoon(location: StoreLocation, userName: string, inMs: number): Promise<number> {
  const endsAt = Date.now() + inMs;
  const store = await openStore(location);
  try {
    const changed = await store.db
      .updateTable('userSessions')
      .set({ endsAt })
      .where('endedAt', 'is', null)
      .where('endsAt', '>', endsAt)
      .where('userId', 'in', (eb) => eb.selectFrom('users').select('id').where('userName', '=', userName))
      .executeTakeFirst();
    if (changed.numUpdatedRows === 0n) throw new Error(`${userName} has no session running past ${inMs} ms from now`);
  } finally {
    await store.close();
  }
  return endsAt;
}
