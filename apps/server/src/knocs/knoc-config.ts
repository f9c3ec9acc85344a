import { randomBytes } from 'node:crypto';
import { ErrorCodes, RECORDED, type AclConfig, type BackendType } from '@postern/protocol';
import { sealToAgent, type SealedPlace } from '@postern/protocol/sealing';
import type { SealedValue, SecretBox, SecretContext } from '../secrets/secret-box.js';
import { BadRequestError } from '../errors.js';
import {
  isLegacySealed,
  isSealedTo,
  sealForRecipient,
  secretForAgent,
  type SealingRecipient,
} from '../secrets/agent-sealed.js';
import { generateToken } from '../lib/random-secret.js';
import type { StoredBackendFields } from '../backends/backend-secrets.js';
import type { KnocRow, StoredAclConfig } from './knocs.repo.js';

/**
 * A script variable as stored on a knoc: when Encrypted, Value is sealed to the agent of the knoc's
 * backend (or, stored before sealing to agents, a SecretBox ciphertext).
 */
interface StoredEnvVar {
  Name: string;
  Value: string;
  Sensitive: boolean;
  Encrypted: boolean;
}

/** Where a legacy sensitive variable's value lives, bound into its SecretBox ciphertext. */
function envVarContext(knocId: string, name: string): SecretContext {
  return { table: 'knocs', column: `config.EnvVars.${name}`, rowId: knocId };
}

/** Where a sensitive variable's value sealed to the agent belongs, bound into it. */
export function envVarPlace(knocId: string, name: string): SealedPlace {
  return { owner: 'knoc', ownerId: knocId, field: `EnvVars.${name}` };
}

/** The token the dashboard appends as `knoctoken` when it auto-browses: 24 random bytes. */
export function generateUriToken(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * The ACL config as it will be stored, from what the admin sent and (on update) what is stored now:
 * - script: a variable is Sensitive when the knoc or the backend's declaration says so; sensitive
 *   values are sealed to `recipient`, the agent of the knoc's backend (400 err.agentCannotSeal when
 *   it has no sealing key). A value sent empty or RECORDED keeps the stored sealed one; with none
 *   stored, or one sealed to another agent (the knoc or its backend moved), or a sealed value that
 *   would have to become plain text (no longer Sensitive), the variable has no value the server
 *   can use: 400 err.envVarValueRequired (Extra: its name).
 * - allowlist: the server makes the Token on create and keeps it on update, whatever was sent.
 */
export function prepareAclConfig(
  secrets: SecretBox,
  recipient: SealingRecipient | null,
  knocId: string,
  sent: AclConfig,
  previous: StoredAclConfig | null,
  backendFields: StoredBackendFields,
): StoredAclConfig {
  const fields = { ...sent.fields };
  if (sent.type === 'script') {
    fields.EnvVars = prepareEnvVars(secrets, recipient, knocId, sent.fields, previous, backendFields);
  }
  if (sent.type === 'allowlist') {
    const kept = previous?.type === 'allowlist' ? previous.fields.Token : undefined;
    fields.Token = typeof kept === 'string' && kept !== '' ? kept : generateToken();
  }
  return { type: sent.type, fields };
}

function prepareEnvVars(
  secrets: SecretBox,
  recipient: SealingRecipient | null,
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
    const storedValue = before?.Encrypted === true && typeof before.Value === 'string' ? before.Value : null;
    const recipientKey = recipient?.sealingKey ?? null;
    const sealed = (plain: string) => ({
      Name: name,
      Value: sealForRecipient(recipient, plain, envVarPlace(knocId, name)),
      Sensitive: true,
      Encrypted: true,
    });
    if (value !== '' && value !== RECORDED) {
      return sensitive ? sealed(value) : { Name: name, Value: value, Sensitive: false, Encrypted: false };
    }
    // RECORDED is a placeholder for a stored value, never a value itself.
    if (storedValue === null) throw new BadRequestError({ code: ErrorCodes.envVarValueRequired, extra: name });
    if (isLegacySealed(storedValue)) {
      // Sealed with the server key before sealing to agents: the last time the server can open it.
      const plain = secrets.open(storedValue, envVarContext(knocId, name));
      if (!sensitive) return { Name: name, Value: plain, Sensitive: false, Encrypted: false };
      return recipientKey === null
        ? { Name: name, Value: storedValue, Sensitive: true, Encrypted: true }
        : sealed(plain);
    }
    // Sealed to an agent: kept only while it stays sensitive and the knoc's agent is that one.
    if (!sensitive || !isSealedTo(storedValue, recipientKey)) {
      throw new BadRequestError({ code: ErrorCodes.envVarValueRequired, extra: name });
    }
    return { Name: name, Value: storedValue, Sensitive: true, Encrypted: true };
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

/**
 * The values of a knoc's config still sealed with the server's SecretBox: sensitive script variables
 * stored before sealing to agents (those sealed to an agent no server key opens).
 */
export function sealedEnvVars(knocId: string, config: StoredAclConfig): SealedValue[] {
  if (config.type !== 'script') return [];
  return envVarList(config.fields.EnvVars)
    .filter((variable) => variable.Encrypted === true && isLegacySealed(variable.Value))
    .map((variable) => ({ sealed: String(variable.Value), context: envVarContext(knocId, String(variable.Name)) }));
}

/**
 * The config with every legacy (SecretBox) sensitive variable value re-sealed to the agent key
 * `sealingKey`, or null when there was none to re-seal. A value the server key cannot open is left
 * as it is: sending it is reported, and an admin re-enters it.
 */
export function resealEnvVars(
  secrets: SecretBox,
  knocId: string,
  config: StoredAclConfig,
  sealingKey: string,
): StoredAclConfig | null {
  if (config.type !== 'script') return null;
  let changed = false;
  const envVars = envVarList(config.fields.EnvVars).map((variable) => {
    if (variable.Encrypted !== true || !isLegacySealed(variable.Value)) return variable;
    const name = String(variable.Name);
    let plain: string;
    try {
      plain = secrets.open(variable.Value, envVarContext(knocId, name));
    } catch {
      return variable;
    }
    changed = true;
    return { ...variable, Value: sealToAgent(sealingKey, plain, envVarPlace(knocId, name)) };
  });
  return changed ? { type: config.type, fields: { ...config.fields, EnvVars: envVars } } : null;
}

/**
 * The knoc's fields for the agent that enforces it, whose sealing key is `sealingKey`: sensitive
 * variable values sealed to that key (see secretForAgent) and the storage flag dropped.
 */
function aclConfigForAgent(
  secrets: SecretBox,
  knocId: string,
  config: StoredAclConfig,
  sealingKey: string | null,
): { type: BackendType | null; fields: Record<string, unknown> } {
  const fields = { ...config.fields };
  if (config.type === 'script') {
    fields.EnvVars = envVarList(fields.EnvVars).map((variable) => {
      const name = String(variable.Name);
      return {
        Name: variable.Name,
        Value:
          variable.Encrypted === true
            ? secretForAgent(
                secrets,
                String(variable.Value),
                envVarContext(knocId, name),
                envVarPlace(knocId, name),
                sealingKey,
              )
            : variable.Value,
        Sensitive: variable.Sensitive === true,
      };
    });
  }
  return { type: config.type, fields };
}

/**
 * A knoc's ACL fields for the agent hub to send to the agent that enforces it: sensitive variable
 * values sealed to that agent's key. Never for an API answer.
 */
export function loadKnocConfigForAgent(
  ctx: { secrets: SecretBox },
  knoc: KnocRow,
  sealingKey: string | null,
): Record<string, unknown> {
  return aclConfigForAgent(ctx.secrets, knoc.id, knoc.config, sealingKey).fields;
}

/** A stored or sent variable list, whatever shape it is in: entries that are objects with a Name. */
function envVarList(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (entry): entry is Record<string, unknown> =>
      typeof entry === 'object' && entry !== null && typeof (entry as { Name?: unknown }).Name === 'string',
  );
}
