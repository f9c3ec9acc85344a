import { z } from 'zod';

/** Every successful API response carries its content in `data`. */
export function dataEnvelope<T extends z.ZodType>(schema: T) {
  return z.object({ data: schema });
}

/** Responses with nothing to say still use the envelope: `{ data: null }`. */
export const EmptyResponse = dataEnvelope(z.null());
export type EmptyResponse = z.infer<typeof EmptyResponse>;
