import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import { WEBHOOK_SIGNATURE_HEADER, webhookUrlProblem } from '@postern/protocol';
import { isPermanentStatus } from '../http/http-status-error.js';

/*
 * Webhook mode of the script backend: instead of running a program, the agent POSTs what a script
 * would get in its environment (the knoc_* values and the knoc's own variables) as one JSON object
 * to the backend's URL, signed with the backend's WebhookSecret. Everything that may be secret
 * travels in the body, which TLS protects; the URL and the headers carry nothing but the signature.
 */

/** Why a webhook URL is refused, for the grant's error (the server refuses the same when saving). */
const URL_PROBLEMS = {
  scheme: 'is not an http or https URL',
  credentials: 'must not carry a user name or password',
  invalid: 'is not a valid URL (whitespace, a bad host or port)',
  plainHttp: 'must use https (plain http only to this host: localhost, 127.0.0.1 or ::1)',
} as const;

/** The answer's text kept for the grant's error, at most. */
const ANSWER_SNIPPET_CHARS = 300;
/** Read at most this much of an answer; the rest is dropped. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** The `X-Postern-Signature` value for a body: `sha256=` and the hex HMAC-SHA256 of its exact bytes. */
export function webhookSignature(secret: string, body: Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * Why `url` cannot be called, or null when it can (the shared rule of `@postern/protocol`). The URL
 * is not repeated: a refused one may carry a password.
 */
export function webhookRefusal(url: string): string | null {
  const problem = webhookUrlProblem(url);
  return problem === null ? null : `the webhook URL ${URL_PROBLEMS[problem]}`;
}

/** One webhook call. */
export interface WebhookCall {
  url: string;
  secret: string;
  /** The values sent, as a script gets them in its environment. */
  values: Readonly<Record<string, string>>;
  timeoutMs: number;
  /** Trusted roots: undefined for Node's default store, else the list to trust (system plus caFile). */
  ca: string[] | undefined;
}

/** How a call ended: `error` null for a 2xx answer; `permanent` when sending it again cannot help. */
export interface WebhookResult {
  error: string | null;
  permanent: boolean;
}

/**
 * POSTs the values to the webhook. TLS is verified (with `ca` when given); redirects are not
 * followed (a 3xx is an error naming the status, so the values never reach a host the admin did not
 * name); a non-2xx answer is an error with its status; no answer within `timeoutMs` is an error too.
 * Never throws.
 */
export function callWebhook(call: WebhookCall): Promise<WebhookResult> {
  const body = Buffer.from(JSON.stringify(call.values), 'utf8');
  const url = new URL(call.url);
  url.hash = '';
  const headers = {
    'content-type': 'application/json',
    'content-length': String(body.length),
    'user-agent': 'postern-agent',
    [WEBHOOK_SIGNATURE_HEADER]: webhookSignature(call.secret, body),
  };
  return new Promise((resolve) => {
    let settled = false;
    const finish = (error: string | null, permanent = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve({ error, permanent });
    };
    const options = { method: 'POST', headers, ...(call.ca === undefined ? {} : { ca: call.ca }) };
    const request =
      url.protocol === 'https:' ? https.request(url, { ...options, agent: false }) : http.request(url, options);
    const timer = setTimeout(
      () => finish(`webhook did not answer within ${Math.round(call.timeoutMs / 1000)} s`),
      call.timeoutMs,
    );
    request.on('error', (error: NodeJS.ErrnoException) => finish(`webhook ${url.origin}: ${transportError(error)}`));
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 200 && status <= 299) {
        response.resume();
        response.on('end', () => finish(null));
        response.on('error', () => finish(null));
        return;
      }
      if (status >= 300 && status <= 399) {
        response.resume();
        finish(`webhook answered HTTP ${status} (a redirect; redirects are not followed)`, true);
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        if (size < MAX_ANSWER_BYTES) chunks.push(chunk);
        size += chunk.length;
      });
      const answered = () => {
        const text = Buffer.concat(chunks).toString('utf8').replace(/\s+/g, ' ').trim();
        const snippet = text.length > ANSWER_SNIPPET_CHARS ? `${text.slice(0, ANSWER_SNIPPET_CHARS)}…` : text;
        finish(`webhook answered HTTP ${status}${snippet === '' ? '' : `: ${snippet}`}`, isPermanentStatus(status));
      };
      response.on('end', answered);
      response.on('error', answered);
    });
    request.end(body);
  });
}

function transportError(error: NodeJS.ErrnoException): string {
  const code = error.code ?? '';
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/.test(code) || /certificate/i.test(error.message)) {
    return `its TLS certificate is not trusted (${error.message}); add its CA to the agent's caFile`;
  }
  return code !== '' && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}

/**
 * The roots a webhook's certificate is checked against: Node's default store, plus the agent's
 * caFile when it has one (the CA it trusts for the server, often the organisation's own). The file
 * is read on each call, so a replaced CA is used without a restart; should it become unreadable,
 * the copy read before is used.
 */
export class WebhookTrust {
  readonly #caFile: string | null;
  #lastCa: string | null = null;

  constructor(caFile: string | null) {
    this.#caFile = caFile;
  }

  roots(): string[] | undefined {
    if (this.#caFile === null) return undefined;
    try {
      this.#lastCa = readFileSync(this.#caFile, 'utf8');
    } catch {
      // The configuration checked the file at start; keep using what was read then.
    }
    return this.#lastCa === null ? [...rootCertificates] : [...rootCertificates, this.#lastCa];
  }
}
