/**
 * One client per backend, rebuilt when the backend's configuration changes: every knoc carries its
 * backend's config, so the key is the backend id plus the config's canonical JSON (keys sorted).
 * A replaced client is closed.
 */
export class ClientCache<C extends { close(): void }> {
  readonly #clients = new Map<string, { fingerprint: string; client: C }>();

  get(backendId: string, config: unknown, create: () => C): C {
    const fingerprint = canonicalJson(config);
    const cached = this.#clients.get(backendId);
    if (cached !== undefined && cached.fingerprint === fingerprint) return cached.client;
    cached?.client.close();
    const client = create();
    this.#clients.set(backendId, { fingerprint, client });
    return client;
  }

  closeAll(): void {
    for (const { client } of this.#clients.values()) client.close();
    this.#clients.clear();
  }
}

/** JSON with object keys sorted at every level, so equal configs give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}
