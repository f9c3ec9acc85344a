/**
 * Runs asynchronous jobs one at a time in the order they were queued. Every change to the applied
 * entries goes through one queue, so a `state`, an `apply` and a local expiry never interleave
 * their driver calls on the same entry, and each sees the result of the one before.
 */
export class SerialQueue {
  #tail: Promise<void> = Promise.resolve();
  #pending = 0;

  /** Number of jobs queued or running. */
  get pending(): number {
    return this.#pending;
  }

  /** Queues `job`; the returned promise settles with its outcome. A failed job does not stop the queue. */
  run<T>(job: () => Promise<T>): Promise<T> {
    this.#pending++;
    const result = this.#tail.then(job);
    this.#tail = result.then(
      () => this.#finished(),
      () => this.#finished(),
    );
    return result;
  }

  /** Resolves once every job queued so far has finished. */
  idle(): Promise<void> {
    return this.#tail;
  }

  #finished(): void {
    this.#pending--;
  }
}
