import { inspect } from 'node:util';

/** What a secret shows wherever it is printed, logged or serialised. */
export const REDACTED = '[set]';

/**
 * A value that must never reach a log, an error message or `check-config` output. JSON, string
 * conversion and `util.inspect` all show {@link REDACTED}, so passing the whole configuration to a
 * logger cannot leak it by accident; only {@link Secret.reveal} gives the value.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The secret itself. Call it only where the value is sent (the server's Authorization header). */
  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return REDACTED;
  }

  toString(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
