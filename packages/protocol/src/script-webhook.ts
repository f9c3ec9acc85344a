import { adminUrlProblem, type AdminUrlProblem } from './endpoint.js';
import { ErrorCodes } from './errors.js';
import { parseIp } from './net.js';

/*
 * A script backend's Command is either a program in the agent's scripts directory or, in webhook
 * mode, a URL the agent POSTs each grant to. The server (when the backend is saved) and the agent
 * (before every call) use these same rules, so a knoc the server accepts is one the agent can run.
 */

/** The header carrying `sha256=<hex HMAC-SHA256 of the exact body>`, keyed with the backend's WebhookSecret. */
export const WEBHOOK_SIGNATURE_HEADER = 'X-Postern-Signature';
/** A webhook's secret is at least this long: it is the only thing proving a call came from Postern. */
export const WEBHOOK_SECRET_MIN_LENGTH = 16;

/** True when the Command is meant as a URL (`scheme://…`), whatever its scheme; false for a program. */
export function isWebhookCommand(command: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(command.trim());
}

/** Why a webhook URL is refused: those of {@link adminUrlProblem}, or plain http to another host. */
export type WebhookUrlProblem = AdminUrlProblem | 'plainHttp';

/**
 * Why `url` cannot be a webhook, or null when it can: an https URL an admin may configure (see
 * endpoint.ts: no credentials, a strict host), or http only to this machine (localhost, 127.0.0.0/8,
 * ::1), where the grant and its sensitive values cannot be read on the way, as the agent's serverUrl
 * allows.
 */
export function webhookUrlProblem(url: string): WebhookUrlProblem | null {
  const problem = adminUrlProblem(url, ['http', 'https']);
  if (problem !== null) return problem;
  const parsed = new URL(url);
  if (parsed.protocol === 'http:' && !isLoopbackHostname(parsed.hostname)) return 'plainHttp';
  return null;
}

/** The error code a webhook URL problem answers with (the spec's 'URL must be http or https' first). */
export const WEBHOOK_URL_PROBLEM_CODES = {
  scheme: ErrorCodes.urlMustBeHttp,
  credentials: ErrorCodes.urlCredentialsNotAllowed,
  invalid: ErrorCodes.urlInvalid,
  plainHttp: ErrorCodes.webhookUrlNotEncrypted,
} as const satisfies Record<WebhookUrlProblem, string>;

/** Whether a URL's hostname (IPv6 in brackets) can only mean this machine. */
function isLoopbackHostname(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost') return true;
  const ip = parseIp(host);
  if (ip === null) return false;
  return ip.family === 4 ? ip.value >> 24n === 127n : ip.value === 1n;
}
