/**
 * Helpers for test worlds: objects a `describe` gets once, whose fields read what its hooks made
 * for the running test.
 */

/** An object whose `keys` read the running test's values from `now()` (which throws outside a test). */
export function liveView<S extends object, K extends keyof S>(now: () => S, keys: readonly K[]): Pick<S, K> {
  const view = {} as Pick<S, K>;
  for (const key of keys) Object.defineProperty(view, key, { get: () => now()[key], enumerable: true });
  return view;
}

/** `world` with `extra`'s fields added, getters kept as getters: an area's world built on another. */
export function extendWorld<W extends object, E extends object>(world: W, extra: E): W & E {
  return Object.defineProperties(Object.create(world) as W & E, Object.getOwnPropertyDescriptors(extra));
}
