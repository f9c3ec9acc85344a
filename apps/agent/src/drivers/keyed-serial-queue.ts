/**
 * One writer at a time per device object: jobs with the same key (a backend and its address group,
 * say) run one after another in the order queued; jobs with different keys run side by side. Two
 * grants on one group therefore never both read it, find an address missing and both write it.
 * A failed job does not stop the ones behind it. A key with nothing queued is forgotten.
 */
export class KeyedSerialQueue {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(
      () => job(),
      () => job(),
    );
    this.#tails.set(key, result);
    const forget = () => {
      if (this.#tails.get(key) === result) this.#tails.delete(key);
    };
    result.then(forget, forget);
    return result;
  }

  /** Keys with a job queued or running. */
  get size(): number {
    return this.#tails.size;
  }

  /** Settles once every job queued so far has finished. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.#tails.values()]);
  }
}
