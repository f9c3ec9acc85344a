import { readFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AwsCredentials } from './aws-sigv4.js';

/** Where the standard chain looks; tests point it at their own environment, file and IMDS. */
export interface CredentialSources {
  env: NodeJS.ProcessEnv;
  /** The instance metadata service (IMDSv2); tests use a local fake. */
  imdsEndpoint: string;
  imdsTimeoutMs: number;
}

export const DEFAULT_IMDS_ENDPOINT = 'http://169.254.169.254';

interface Cached {
  credentials: AwsCredentials;
  /** ms since the epoch; Infinity for long-term keys. */
  expires: number;
}

/** Temporary credentials are renewed this long before they expire. */
const RENEW_BEFORE_MS = 5 * 60_000;

/**
 * The standard AWS credential chain for a backend whose keys are empty: the environment
 * (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), the shared credentials file
 * (AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials, profile AWS_PROFILE or default), then the EC2
 * instance role through IMDSv2 (a session token first, never the v1 GET-only flow). Results are kept
 * until shortly before they expire; one lookup at a time.
 */
export class CredentialChain {
  readonly #sources: CredentialSources;
  #cached: Cached | null = null;
  #pending: Promise<AwsCredentials> | null = null;

  constructor(sources: CredentialSources) {
    this.#sources = sources;
  }

  get(): Promise<AwsCredentials> {
    if (this.#cached !== null && this.#cached.expires - RENEW_BEFORE_MS > Date.now()) {
      return Promise.resolve(this.#cached.credentials);
    }
    this.#pending ??= this.#resolve().finally(() => (this.#pending = null));
    return this.#pending;
  }

  /** Forget what was found (after the API refused it). */
  reset(): void {
    this.#cached = null;
  }

  async #resolve(): Promise<AwsCredentials> {
    const found =
      fromEnvironment(this.#sources.env) ?? (await fromSharedFile(this.#sources.env)) ?? (await this.#imds());
    this.#cached = found;
    return found.credentials;
  }

  async #imds(): Promise<Cached> {
    const { imdsEndpoint: base, imdsTimeoutMs: timeoutMs } = this.#sources;
    const fail = (why: string) =>
      new Error(
        `aws: the backend has no keys and no AWS credentials were found (environment, shared credentials file, instance role: ${why})`,
      );
    let token: string;
    try {
      token = await imdsCall(
        base,
        'PUT',
        '/latest/api/token',
        { 'x-aws-ec2-metadata-token-ttl-seconds': '21600' },
        timeoutMs,
      );
    } catch (error) {
      throw fail(`no instance metadata service: ${(error as Error).message}`);
    }
    const headers = { 'x-aws-ec2-metadata-token': token };
    const prefix = '/latest/meta-data/iam/security-credentials/';
    const role = (await imdsCall(base, 'GET', prefix, headers, timeoutMs).catch(() => '')).split('\n')[0]?.trim() ?? '';
    if (role === '') throw fail('the instance has no role');
    const text = await imdsCall(base, 'GET', `${prefix}${encodeURIComponent(role)}`, headers, timeoutMs);
    let parsed: { AccessKeyId?: unknown; SecretAccessKey?: unknown; Token?: unknown; Expiration?: unknown };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      throw fail(`unreadable credentials for role ${role}`);
    }
    if (typeof parsed.AccessKeyId !== 'string' || typeof parsed.SecretAccessKey !== 'string') {
      throw fail(`no keys for role ${role}`);
    }
    const expires = typeof parsed.Expiration === 'string' ? Date.parse(parsed.Expiration) : NaN;
    return {
      credentials: {
        accessKeyId: parsed.AccessKeyId,
        secretAccessKey: parsed.SecretAccessKey,
        ...(typeof parsed.Token === 'string' ? { sessionToken: parsed.Token } : {}),
      },
      expires: Number.isNaN(expires) ? Date.now() + 15 * 60_000 : expires,
    };
  }
}

function fromEnvironment(env: NodeJS.ProcessEnv): Cached | null {
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim() ?? '';
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim() ?? '';
  if (accessKeyId === '' || secretAccessKey === '') return null;
  const sessionToken = env.AWS_SESSION_TOKEN?.trim() ?? '';
  return {
    credentials: { accessKeyId, secretAccessKey, ...(sessionToken === '' ? {} : { sessionToken }) },
    expires: Infinity,
  };
}

/** The profile's keys from the shared credentials file (INI), or null when it has none. */
async function fromSharedFile(env: NodeJS.ProcessEnv): Promise<Cached | null> {
  const file = env.AWS_SHARED_CREDENTIALS_FILE?.trim() || path.join(env.HOME ?? os.homedir(), '.aws', 'credentials');
  const profile = env.AWS_PROFILE?.trim() || 'default';
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return null;
  }
  const values = new Map<string, string>();
  let current = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[\s*(.+?)\s*\]$/.exec(line);
    if (section !== null) {
      current = section[1] ?? '';
      continue;
    }
    const pair = /^([^=]+?)\s*=\s*(.*)$/.exec(line);
    if (pair !== null && current === profile) values.set((pair[1] ?? '').toLowerCase(), pair[2] ?? '');
  }
  const accessKeyId = values.get('aws_access_key_id') ?? '';
  const secretAccessKey = values.get('aws_secret_access_key') ?? '';
  if (accessKeyId === '' || secretAccessKey === '') return null;
  const sessionToken = values.get('aws_session_token') ?? '';
  return {
    credentials: { accessKeyId, secretAccessKey, ...(sessionToken === '' ? {} : { sessionToken }) },
    expires: Infinity,
  };
}

/** One IMDS call; IMDS is plain HTTP on a link-local address, never proxied, never redirected. */
function imdsCall(
  base: string,
  method: 'GET' | 'PUT',
  pathname: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(pathname, base), { method, headers, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode === 200) resolve(body);
        else reject(new Error(`HTTP ${res.statusCode ?? 0} from ${method} ${pathname}`));
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}
