import type { Logger } from 'pino';
import { errorMessage } from '../outcomes.js';

/**
 * The tail of a Sophos remove (UTM and SFOS alike): the objects that left the knoc's group are
 * removed from the device unless another group still holds them (another knoc may grant the same
 * address). Failures are only logged: the addresses have left the group, which is what counts, and a
 * kept object is reused by name on the next grant.
 */
export async function removeUnusedObjects<T extends string>(options: {
  /** The objects that left the group (names or refs, as the groups list them). */
  leaving: readonly T[];
  /** Every group of the device, as the lists of the objects each holds. */
  groupMembers: () => Promise<readonly (readonly string[])[]>;
  /** Removes the unused objects (only called with at least one). */
  remove: (unused: T[]) => Promise<void>;
  logger: Logger;
  /** The log message when the removal fails as a whole. */
  failure: string;
}): Promise<void> {
  try {
    const used = new Set((await options.groupMembers()).flat());
    const unused = options.leaving.filter((object) => !used.has(object));
    if (unused.length > 0) await options.remove(unused);
  } catch (error) {
    options.logger.warn({ error: errorMessage(error) }, options.failure);
  }
}
