/** What a secret shows in an error message or a log line written by the driver kit. */
export const REDACTED_SECRET = '[redacted]';

/**
 * Replaces every secret the client was told about in a text. Secrets are matched as written and
 * percent-encoded (they travel in URLs and form bodies too), longest first, so a token that contains
 * a shorter secret is still hidden as a whole. The list is read on every call: a session token
 * obtained later is redacted from then on.
 */
export class Redactor {
  readonly #sources: () => Iterable<string>;

  constructor(sources: () => Iterable<string>) {
    this.#sources = sources;
  }

  redact(text: string): string {
    const needles = new Set<string>();
    for (const secret of this.#sources()) {
      if (secret.length === 0) continue;
      needles.add(secret);
      needles.add(encodeURIComponent(secret));
      // JSON.stringify escapes quotes and backslashes: a secret echoed inside a JSON body looks so.
      needles.add(JSON.stringify(secret).slice(1, -1));
    }
    let result = text;
    for (const needle of [...needles].sort((a, b) => b.length - a.length)) {
      result = result.split(needle).join(REDACTED_SECRET);
    }
    return result;
  }
}
