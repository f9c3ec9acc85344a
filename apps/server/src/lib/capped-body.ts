/**
 * A response body read whole, but never beyond `maxBytes`: a declared length over the cap is refused
 * before anything is read, and a body that grows past it (no length, or a false one) is cancelled
 * there. `tooLarge` makes the caller's own error, so each fetcher keeps its vocabulary. Null when the
 * response has no body.
 */
export async function readBodyCapped(
  response: Response,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Buffer | null> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (response.body === null) return null;
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
