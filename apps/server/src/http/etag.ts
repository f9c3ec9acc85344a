/**
 * If-None-Match against our tag, by the weak comparison RFC 9110 prescribes for it: a `W/` prefix is
 * ignored, `*` matches any current representation, and the header may list several tags.
 */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const candidates = ifNoneMatch.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  return candidates.some((tag) => tag === '*' || tag === etag);
}
