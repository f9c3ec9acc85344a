/**
 * Dirty tracking for the settings sections: Save and Cancel are enabled only when the form differs
 * from what the server last said (spec §2 Settings), so a change typed and then undone counts as none.
 */

/** Structural equality of plain form values (strings, numbers, booleans, null, arrays, objects). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  return aKeys.every(
    (key) =>
      Object.hasOwn(b, key) && sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

/** The top-level fields whose value differs between the form and the saved values. */
export function changedFields<V extends object>(current: V, saved: V): (keyof V)[] {
  const keys = new Set([...Object.keys(current), ...Object.keys(saved)] as (keyof V)[]);
  return [...keys].filter((key) => !sameValue(current[key], saved[key]));
}

/** Whether the form has anything to save or cancel. */
export function hasChanges<V extends object>(current: V, saved: V): boolean {
  return changedFields(current, saved).length > 0;
}
