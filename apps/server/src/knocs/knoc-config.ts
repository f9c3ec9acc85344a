import { randomBytes } from 'node:crypto';
import { ErrorCodes, RECORDED, type AclConfig, type BackendType } from '@postern/protocol';
import type { SealedValue, SecretBox, SecretContext } from '../secrets/secret-box.js';
import { BadRequestError } from '../errors.js';
import { generateToken } from '../lib/random-secret.js';
import type { StoredBackendFields } from '../backends/backend-secrets.js';
import type { KnocRow, StoredAclConfig } from './knocs.repo.js';

/** A script variable as stored on a knoc: Value is a SecretBox ciphertext when Encrypted. */
interface StoredEnvVar {
  Name: string;
  Value: string;
  Sensitive: boolean;
  Encrypted: boolean;
}

/** Where a sensitive variable's value lives, bound into its ciphertext. */
function envVarContext(knocId: string, name: string): SecretContext {
  return { table: 'knocs', column: `config.EnvVars.${name}`, rowId: knocId };
}

/** The token the dashboard appends as `knoctoken` when it auto-browses: 24 random bytes. */
export function generateUriToken(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * The ACL config as it will be stored, from what the admin sent and (on update) what is stored now:
 * - script: a variable is Sensitive when the knoc or the backend's declaration says so; sensitive
 *   values are sealed. A value sent empty or RECORDED keeps the stored encrypted one; with none
 *   stored, such a variable has no value: 400 err.envVarValueRequired (Extra: its name).
 * - allowlist: the server makes the Token on create and keeps it on update, whatever was sent.
 */
export function prepareAclConfig(
  secrets: SecretBox,
  knocId: string,
  sent: AclConfig,
  previous: StoredAclConfig | null,
  backendFields: StoredBackendFields,
): StoredAclConfig {
  const fields = { ...sent.fields };
  if (sent.type === 'script') {
    fields.EnvVars = prepareEnvVars(secrets, knocId, sent.fields, previous, backendFields);
  }
  if (sent.type === 'allowlist') {
    const kept = previous?.type === 'allowlist' ? previous.fields.Token : undefined;
    fields.Token = typeof kept === 'string' && kept !== '' ? kept : generateToken();
  }
  return { type: sent.type, fields };
}

function prepareEnvVars(
  secrets: SecretBox,
  knocId: string,
  sent: Record<string, unknown>,
  previous: StoredAclConfig | null,
  backendFields: StoredBackendFields,
): StoredEnvVar[] {
  const declaredSensitive = new Set(
    envVarList(backendFields.EnvVars)
      .filter((declared) => declared.Sensitive === true)
      .map((declared) => declared.Name),
  );
  const stored = new Map(
    (previous?.type === 'script' ? envVarList(previous.fields.EnvVars) : []).map((value) => [value.Name, value]),
  );
  return envVarList(sent.EnvVars).map((variable) => {
    const name = String(variable.Name);
    const sensitive = variable.Sensitive === true || declaredSensitive.has(name);
    const value = typeof variable.Value === 'string' ? variable.Value : '';
    const before = stored.get(name);
    const keep = (value === '' || value === RECORDED) && before?.Encrypted === true && typeof before.Value === 'string';
    if (keep && sensitive) return { Name: name, Value: before.Value as string, Sensitive: true, Encrypted: true };
    // RECORDED is a placeholder for a stored value, never a value itself.
    if (!keep && (value === '' || value === RECORDED))
      throw new BadRequestError({ code: ErrorCodes.envVarValueRequired, extra: name });
    const plain = keep ? secrets.open(before.Value as string, envVarContext(knocId, name)) : value;
    return sensitive
      ? { Name: name, Value: secrets.seal(plain, envVarContext(knocId, name)), Sensitive: true, Encrypted: true }
      : { Name: name, Value: plain, Sensitive: false, Encrypted: false };
  });
}

/** The config as the API shows it: sensitive variable values as RECORDED with Encrypted true. */
export function maskAclConfig(config: StoredAclConfig): Record<string, unknown> {
  if (config.type === null) return {};
  const fields = { ...config.fields };
  if (config.type === 'script') {
    fields.EnvVars = envVarList(fields.EnvVars).map((variable) =>
      variable.Encrypted === true ? { ...variable, Value: RECORDED, Encrypted: true } : variable,
    );
  }
  return { [config.type]: fields };
}

/** The sealed values of a knoc's config: its sensitive script variables. */
export function sealedEnvVars(knocId: string, config: StoredAclConfig): SealedValue[] {
  if (config.type !== 'script') return [];
  return envVarList(config.fields.EnvVars)
    .filter((variable) => variable.Encrypted === true)
    .map((variable) => ({ sealed: String(variable.Value), context: envVarContext(knocId, String(variable.Name)) }));
}

/**
 * The knoc's fields for the agent that enforces it: variable values decrypted and the storage flag
 * dropped. Never for an API answer.
 */
function openAclConfig(
  secrets: SecretBox,
  knocId: string,
  config: StoredAclConfig,
): { type: BackendType | null; fields: Record<string, unknown> } {
  const fields = { ...config.fields };
  if (config.type === 'script') {
    fields.EnvVars = envVarList(fields.EnvVars).map((variable) => ({
      Name: variable.Name,
      Value:
        variable.Encrypted === true
          ? secrets.open(String(variable.Value), envVarContext(knocId, String(variable.Name)))
          : variable.Value,
      Sensitive: variable.Sensitive === true,
    }));
  }
  return { type: config.type, fields };
}

/**
 * A knoc's ACL fields for the agent hub to send to the agent that enforces it (over TLS, to that
 * agent only): sensitive variable values decrypted. Never for an API answer.
 */
export function loadKnocConfigForAgent(ctx: { secrets: SecretBox }, knoc: KnocRow): Record<string, unknown> {
  return openAclConfig(ctx.secrets, knoc.id, knoc.config).fields;
}

/** A stored or sent variable list, whatever shape it is in: entries that are objects with a Name. */
function envVarList(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (entry): entry is Record<string, unknown> =>
      typeof entry === 'object' && entry !== null && typeof (entry as { Name?: unknown }).Name === 'string',
  );
}
