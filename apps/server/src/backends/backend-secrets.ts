import {
  BACKEND_ADDRESS_FIELD,
  BACKEND_SECRET_FIELDS,
  ErrorCodes,
  RECORDED,
  isWebhookCommand,
  type BackendType,
} from '@postern/protocol';
import { sealToAgent, type SealedPlace } from '@postern/protocol/sealing';
import type { SealedValue, SecretBox, SecretContext } from '../secrets/secret-box.js';
import { BadRequestError } from '../errors.js';
import { isLegacySealed, sealForRecipient, secretForAgent, type SealingRecipient } from '../secrets/agent-sealed.js';

/**
 * A backend's fields as stored: secret fields hold values sealed to the backend's agent
 * (`sealed:v1:…`), or, from before sealing to agents, SecretBox ciphertexts.
 */
export type StoredBackendFields = Record<string, unknown>;

/** Where a legacy backend secret lives, bound into its SecretBox ciphertext: table, `config.<Field>`, row id. */
function secretContext(backendId: string, field: string): SecretContext {
  return { table: 'backends', column: `config.${field}`, rowId: backendId };
}

/** Where a backend secret sealed to its agent belongs, bound into it. */
export function backendSecretPlace(backendId: string, field: string): SealedPlace {
  return { owner: 'backend', ownerId: backendId, field };
}

/**
 * The fields as they will be stored: every secret of the type sealed to the backend's agent (400
 * err.agentCannotSeal when that agent has no sealing key).
 */
export function sealBackendSecrets(
  recipient: SealingRecipient | null,
  type: BackendType,
  fields: Record<string, unknown>,
  backendId: string,
): StoredBackendFields {
  const stored: StoredBackendFields = { ...fields };
  for (const field of BACKEND_SECRET_FIELDS[type]) {
    const value = fields[field];
    // An empty secret is none (AWS keys left empty): nothing to seal, and no key needed for it.
    if (typeof value === 'string' && value !== '')
      stored[field] = sealForRecipient(recipient, value, backendSecretPlace(backendId, field));
  }
  return stored;
}

/**
 * The backend's secrets still sealed with the server's SecretBox (stored before sealing to agents),
 * keyed by field: the start-up key check reads them, and they are re-sealed to the agent when it
 * registers its key. Values sealed to an agent are not among them: no server key opens those.
 */
export function sealedBackendSecrets(
  type: BackendType,
  stored: StoredBackendFields,
  backendId: string,
): Map<string, SealedValue> {
  const sealed = new Map<string, SealedValue>();
  for (const field of BACKEND_SECRET_FIELDS[type]) {
    const value = stored[field];
    if (value !== '' && isLegacySealed(value))
      sealed.set(field, { sealed: value, context: secretContext(backendId, field) });
  }
  return sealed;
}

/**
 * The stored fields as the agent `sealingKey` is sent them: every secret sealed to that key (see
 * secretForAgent; a secret sealed to another key throws SecretUnreadableError).
 */
export function backendSecretsForAgent(
  secrets: SecretBox,
  type: BackendType,
  stored: StoredBackendFields,
  backendId: string,
  sealingKey: string | null,
): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...stored };
  for (const field of BACKEND_SECRET_FIELDS[type]) {
    const value = stored[field];
    if (typeof value !== 'string' || value === '') continue;
    fields[field] = secretForAgent(
      secrets,
      value,
      secretContext(backendId, field),
      backendSecretPlace(backendId, field),
      sealingKey,
    );
  }
  return fields;
}

/**
 * The stored fields with every legacy secret (SecretBox) re-sealed to the agent key `sealingKey`,
 * or null when there was none to re-seal. A legacy value the server key cannot open is left as it
 * is: sending it is reported, and an admin re-enters it.
 */
export function resealBackendSecrets(
  secrets: SecretBox,
  type: BackendType,
  stored: StoredBackendFields,
  backendId: string,
  sealingKey: string,
): StoredBackendFields | null {
  const fields: StoredBackendFields = { ...stored };
  let changed = false;
  for (const [field, { sealed, context }] of sealedBackendSecrets(type, stored, backendId)) {
    let plain: string;
    try {
      plain = secrets.open(sealed, context);
    } catch {
      continue;
    }
    fields[field] = sealToAgent(sealingKey, plain, backendSecretPlace(backendId, field));
    changed = true;
  }
  return changed ? fields : null;
}

/** The stored fields as the API shows them: every secret written as RECORDED (an empty one stays empty). */
export function maskBackendSecrets(type: BackendType, stored: StoredBackendFields): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...stored };
  for (const field of BACKEND_SECRET_FIELDS[type]) {
    if (field in fields && fields[field] !== '') fields[field] = RECORDED;
  }
  return fields;
}

/** A secret sent back as RECORDED, empty or not at all: the admin did not re-enter it. */
function keepsStoredSecret(value: unknown): boolean {
  return value === undefined || value === '' || value === RECORDED;
}

/**
 * The stored fields after an update: secrets that were not re-entered keep their stored values, new
 * ones are sealed to the backend's agent. A secret is never sent to a host the admin changed without
 * re-entering it: changing the type's address field (Url or Hostname) while any secret is kept is
 * refused with 400 err.reenterCredentials. Nor to another agent: the stored values are sealed to the
 * old one, so moving the backend while any secret is kept is refused with 400
 * err.reenterSecretsForAgent (Extra: the fields to re-enter).
 */
export function mergeBackendUpdate(
  recipient: SealingRecipient | null,
  type: BackendType,
  stored: StoredBackendFields,
  sent: Record<string, unknown>,
  backendId: string,
  movedToAnotherAgent: boolean,
): StoredBackendFields {
  const dropped = droppedSecrets(type, sent);
  const kept = BACKEND_SECRET_FIELDS[type].filter(
    (field) => !dropped.includes(field) && keepsStoredSecret(sent[field]),
  );
  // A secret never stored (AWS keys left empty; a script saved before webhooks had none) binds
  // nothing to the old address or agent.
  const bound = kept.filter((field) => stored[field] !== '' && stored[field] !== undefined);
  const addressField = BACKEND_ADDRESS_FIELD[type];
  if (addressField !== undefined && bound.length > 0 && sent[addressField] !== stored[addressField]) {
    throw new BadRequestError({ code: ErrorCodes.reenterCredentials, extra: bound.join(', ') });
  }
  if (movedToAnotherAgent && bound.length > 0) {
    throw new BadRequestError({ code: ErrorCodes.reenterSecretsForAgent, extra: bound.join(', ') });
  }
  const reentered = Object.fromEntries(Object.entries(sent).filter(([field]) => !kept.includes(field)));
  const merged = sealBackendSecrets(recipient, type, reentered, backendId);
  for (const field of dropped) merged[field] = '';
  for (const field of kept) {
    // A script backend saved before webhooks existed has no WebhookSecret: it has none.
    const previous = type === 'script' && stored[field] === undefined ? '' : stored[field];
    if (typeof previous !== 'string') throw new BadRequestError({ extra: `Config.${type}.${field}: required` });
    merged[field] = previous;
  }
  if (type === 'aws' && merged.AccessKeyId !== '' && merged.SecretAccessKey === '') {
    throw new BadRequestError({ code: ErrorCodes.awsKeysIncomplete, extra: 'Config.aws.SecretAccessKey' });
  }
  // A program turned into a webhook needs a secret the schema could not see was missing.
  if (
    type === 'script' &&
    typeof merged.Command === 'string' &&
    isWebhookCommand(merged.Command) &&
    merged.WebhookSecret === ''
  ) {
    throw new BadRequestError({ code: ErrorCodes.webhookSecretRequired, extra: 'Config.script.WebhookSecret' });
  }
  return merged;
}

/**
 * The secrets an update removes: AWS keys left empty switch the agent to its host's credentials,
 * so a stored secret access key goes with the key ID.
 */
function droppedSecrets(type: BackendType, sent: Record<string, unknown>): string[] {
  return type === 'aws' && sent.AccessKeyId === '' ? ['SecretAccessKey'] : [];
}
