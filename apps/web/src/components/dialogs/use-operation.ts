import { useCallback, useState } from 'react';

/**
 * Which of a screen's dialogs is open, as one value (Teleport's `Operation` union): a
 * `{ type: 'edit', item }` or the like, or null for none. Delete and similar one-click actions ask
 * through a confirmation instead.
 */
export function useOperation<Operation extends { type: string }>() {
  const [operation, setOperation] = useState<Operation | null>(null);
  const open = useCallback((next: Operation) => setOperation(next), []);
  const close = useCallback(() => setOperation(null), []);
  return { operation, open, close };
}
