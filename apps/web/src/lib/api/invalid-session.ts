/**
 * A tiny broadcast for "the server says this session is gone" (401 err.invalidSession). The API
 * client raises it; one component inside the router listens and sends the person to the right
 * login, so no page has to handle it.
 */
type Listener = () => void;

const listeners = new Set<Listener>();

/** Registers a listener; returns the function that removes it. */
export function onInvalidSession(listener: Listener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** Tells every listener that a call was refused with err.invalidSession. */
export function notifyInvalidSession(): void {
  for (const listener of [...listeners]) listener();
}
