import { z } from 'zod';
import { dataEnvelope } from './envelope.js';
import { ErrorCodes } from './errors.js';
import { Cidr, Id, IsoDateTime, RequiredName } from './common.js';

/**
 * What a key may do. `allowlist.read:{ACL ID}` fetches that ACL's allowlist; `agent.register` enrols
 * agents; `user.sessions` reads /api/v1/user_sessions; `user.auth:{user ID}` acts as that user.
 */
export const API_KEY_SCOPE_PATTERN =
  /^(allowlist\.read:[A-Za-z0-9-]{1,64}|agent\.register|user\.sessions|user\.auth:[A-Za-z0-9-]{1,64})$/;
export const ApiKeyScope = z.string().regex(API_KEY_SCOPE_PATTERN, ErrorCodes.invalidScope);

/** Where a key may be used from: a CIDR and a note saying why. */
export const AllowedFromEntry = z.object({
  Prefix: Cidr,
  Note: z.string().trim().min(1).max(200),
});
export type AllowedFromEntry = z.infer<typeof AllowedFromEntry>;

export const ApiKeyRecord = z.object({
  ID: Id,
  Name: z.string(),
  Scopes: z.array(z.string()),
  /** The ACL or user ids the scopes name, for display. */
  Resources: z.array(z.string()),
  AllowedFrom: z.array(AllowedFromEntry),
  /** ISO expiry, or null for a key that never expires. */
  ExpiredAfter: z.string().nullable(),
  CreatedAt: z.string(),
  LastUsedAt: z.string().nullable(),
});
export type ApiKeyRecord = z.infer<typeof ApiKeyRecord>;
export const ApiKeyResponse = dataEnvelope(ApiKeyRecord);
export const ApiKeyListResponse = dataEnvelope(z.array(ApiKeyRecord));

/** POST /api/admin/api-keys */
export const ApiKeyCreateBody = z.object({
  Name: RequiredName,
  Scopes: z.array(ApiKeyScope).min(1),
  AllowedFrom: z.array(AllowedFromEntry).default([]),
  /** Omitted: the key never expires. */
  ExpiredAfter: IsoDateTime.optional(),
});
export type ApiKeyCreateBody = z.infer<typeof ApiKeyCreateBody>;

/** The key's plaintext is in this answer and nowhere else, ever. */
export const ApiKeyCreateResponse = dataEnvelope(ApiKeyRecord.extend({ PlaintextKey: z.string() }));

/** PUT /api/admin/api-keys/{id}: only AllowedFrom can change; the other fields must be as they are. */
export const ApiKeyUpdateBody = z.object({
  ID: Id,
  Name: z.string().optional(),
  Scopes: z.array(z.string()).optional(),
  AllowedFrom: z.array(AllowedFromEntry),
  ExpiredAfter: IsoDateTime.nullable().optional(),
});
export type ApiKeyUpdateBody = z.infer<typeof ApiKeyUpdateBody>;
