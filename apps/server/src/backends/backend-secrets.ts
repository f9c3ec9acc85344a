import {
  BACKEND_ADDRESS_FIELD,
  BACKEND_SECRET_FIELDS,
  ErrorCodes,
  RECORDED,
  type BackendType,
} from '@postern/protocol';
import type { SealedValue, SecretBox, SecretContext } from '../secrets/secret-box.js';
import { BadRequestError } from '../errors.js';

/** A backend's fields as stored: secret fields hold SecretBox ciphertexts. */
export type StoredBackendFields = Record<string, unknown>;

/** Where a backend secret lives, bound into its ciphertext: table, `config.<Field>`, row id. */
function secretContext(backendId: string, field: string): SecretContext {
  return { table: 'backends', column: `config.${field}`, rowId: backendId };
}

/** The fields as they will be stored: every secret of the type sealed. */
export function sealBackendSecrets(
  secrets: SecretBox,
  type: BackendType,
  fields: Record<string, unknown>,
  backendId: string,
): StoredBackendFields {
  const stored: StoredBackendFields = { ...fields };
  for (const field of BACKEND_SECRET_FIELDS[type]) {
    const value = fields[field];
    if (typeof value === 'string') stored[field] = secrets.seal(value, secretContext(backendId, field));
  }
  return stored;
}

/** The sealed secrets among a backend's stored fields, keyed by field. */
export function sealedBackendSecrets(
  type: BackendType,
  stored: StoredBackendFields,
  backendId: string,
): Map<string, SealedValue> {
  const sealed = new Map<string, SealedValue>();
  for (const field of BACKEND_SECRET_FIELDS[type]) {
    const value = stored[field];
    if (typeof value === 'string') sealed.set(field, { sealed: value, context: secretContext(backendId, field) });
  }
  return sealed;
}

/** The stored fields with every secret opened: only for the agent that drives the backend. */
export function openBackendSecrets(
  secrets: SecretBox,
  type: BackendType,
  stored: StoredBackendFields,
  backendId: string,
): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...stored };
  for (const [field, { sealed, context }] of sealedBackendSecrets(type, stored, backendId)) {
    fields[field] = secrets.open(sealed, context);
  }
  return fields;
}

/** The stored fields as the API shows them: every secret written as RECORDED. */
export function maskBackendSecrets(type: BackendType, stored: StoredBackendFields): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...stored };
  for (const field of BACKEND_SECRET_FIELDS[type]) {
    if (field in fields) fields[field] = RECORDED;
  }
  return fields;
}

/** A secret sent back as RECORDED, empty or not at all: the admin did not re-enter it. */
function keepsStoredSecret(value: unknown): boolean {
  return value === undefined || value === '' || value === RECORDED;
}

/**
 * The stored fields after an update: secrets that were not re-entered keep their stored
 * ciphertexts, new ones are sealed. A secret is never sent to a host the admin changed without
 * re-entering it: changing the type's address field (Url or Hostname) while any secret is kept is
 * refused with 400 err.reenterCredentials.
 */
export function mergeBackendUpdate(
  secrets: SecretBox,
  type: BackendType,
  stored: StoredBackendFields,
  sent: Record<string, unknown>,
  backendId: string,
): StoredBackendFields {
  const secretFields = BACKEND_SECRET_FIELDS[type];
  const kept = secretFields.filter((field) => keepsStoredSecret(sent[field]));
  const addressField = BACKEND_ADDRESS_FIELD[type];
  if (addressField !== undefined && kept.length > 0 && sent[addressField] !== stored[addressField]) {
    throw new BadRequestError({ code: ErrorCodes.reenterCredentials, extra: kept.join(', ') });
  }
  const merged = sealBackendSecrets(secrets, type, sent, backendId);
  for (const field of kept) {
    const previous = stored[field];
    if (typeof previous !== 'string') throw new BadRequestError({ extra: `Config.${type}.${field}: required` });
    merged[field] = previous;
  }
  return merged;
}
