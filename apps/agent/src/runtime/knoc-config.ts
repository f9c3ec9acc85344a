import type { AgentKnoc } from '@postern/protocol';
import type { EntryStore } from './entry-store.js';

/**
 * A `state` message's knocs, keeping the held configuration object where it did not change. Knoc
 * objects are compared by identity elsewhere (batches, "did the configuration change"), so an equal
 * configuration must stay the same object.
 */
export function desiredKnocs(store: EntryStore, list: readonly AgentKnoc[]): Map<string, AgentKnoc> {
  const knocs = new Map<string, AgentKnoc>();
  for (const knoc of list) {
    const current = store.knocs.get(knoc.aclId);
    knocs.set(knoc.aclId, current !== undefined && sameKnoc(current, knoc) ? current : knoc);
  }
  // Held entries may refer to a configuration that left `store.knocs` earlier; reuse it when equal.
  for (const held of store.entries.values()) {
    const knoc = knocs.get(held.aclId);
    if (knoc !== undefined && knoc !== held.knoc && sameKnoc(knoc, held.knoc)) knocs.set(held.aclId, held.knoc);
  }
  return knocs;
}

/** Whether two knoc configurations drive the device identically (compared field by field, key order aside). */
function sameKnoc(a: AgentKnoc, b: AgentKnoc): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : inner,
  );
}
