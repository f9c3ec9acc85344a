import type { Logger } from 'pino';
import { AgentToServerMessage } from '@postern/protocol';

/** A text frame's payload as a string (ws hands over a Buffer, or fragments of one). */
export function textOf(data: Buffer | ArrayBuffer | Buffer[]): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data).toString('utf8');
}

/**
 * An agent's text frame as a protocol message, or the reason to close the connection with a
 * protocol error (an invalid message is logged with where it went wrong, not with its content).
 */
export function parseAgentFrame(
  text: string,
  log: Logger,
): { message: AgentToServerMessage; refusal?: undefined } | { refusal: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { refusal: 'not JSON' };
  }
  const parsed = AgentToServerMessage.safeParse(json);
  if (!parsed.success) {
    log.warn({ issues: parsed.error.issues.slice(0, 3).map((issue) => issue.path.join('.')) }, 'invalid agent message');
    return { refusal: 'invalid message' };
  }
  return { message: parsed.data };
}
