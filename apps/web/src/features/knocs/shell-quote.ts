/** Characters a POSIX shell takes literally outside quotes. */
const SAFE = /^[\w@%+=:,./-]+$/;

/**
 * `value` as one shell word: unchanged when it is plain, else in single quotes (a quote inside as
 * '\''), so a copied command runs with names and addresses that hold spaces or `$`.
 */
export function shellQuote(value: string): string {
  if (SAFE.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
