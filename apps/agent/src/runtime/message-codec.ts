import type { RawData } from 'ws';
import type { z } from 'zod';
import { ServerToAgentMessage, type AgentToServerMessage } from '@postern/protocol';

/** How many validation problems an invalid message's log line lists. */
const MAX_ISSUES_LOGGED = 5;

/** A decoded server message, or why it was refused in terms safe to log. */
export type Decoded =
  | { ok: true; message: ServerToAgentMessage }
  | { ok: false; problem: string; type: string | null; issues: { path: string; code: string; message: string }[] };

/**
 * Parses and validates one frame from the server. The description of an invalid frame names the
 * message type, the paths of the bad fields and zod's wording (types, not values), and never the
 * frame's content: a knoc's backend and acl carry decrypted secrets.
 */
export function decodeServerMessage(data: RawData, isBinary: boolean): Decoded {
  if (isBinary) return { ok: false, problem: 'binary frame', type: null, issues: [] };
  let json: unknown;
  try {
    json = JSON.parse(rawText(data));
  } catch {
    return { ok: false, problem: 'not JSON', type: null, issues: [] };
  }
  const parsed = ServerToAgentMessage.safeParse(json);
  if (parsed.success) return { ok: true, message: parsed.data };
  return { ok: false, problem: 'does not match the protocol', type: typeOf(json), issues: describe(parsed.error) };
}

/** Serialises a message for the server. */
export function encodeAgentMessage(message: AgentToServerMessage): string {
  return JSON.stringify(message);
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

function typeOf(json: unknown): string | null {
  if (json === null || typeof json !== 'object' || !('type' in json)) return null;
  const type = json.type;
  // Only a short, plain word: anything else could be content.
  return typeof type === 'string' && /^[a-z-]{1,32}$/.test(type) ? type : null;
}

function describe(error: z.ZodError): { path: string; code: string; message: string }[] {
  return error.issues.slice(0, MAX_ISSUES_LOGGED).map((issue) => ({
    path: issue.path.map(String).join('.'),
    code: issue.code,
    message: issue.message,
  }));
}
