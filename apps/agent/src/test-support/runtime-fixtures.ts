import { Writable } from 'node:stream';
import type { AgentKnoc, AgentKnocOf, BackendType, DesiredEntry } from '@postern/protocol';
import { createLogger } from '../logger.js';

/** A knoc for the runtime's tests (an ipset knoc unless overridden). */
export function testKnoc(aclId: string, overrides: Partial<AgentKnocOf<BackendType>> = {}): AgentKnoc {
  return {
    aclId,
    name: `Knoc ${aclId}`,
    url: 'https://app.example.com',
    backendId: `backend-${aclId}`,
    backendType: 'ipset',
    backend: {},
    acl: { V4SetName: 'postern4', V6SetName: 'postern6' },
    ...overrides,
  } as AgentKnoc;
}

/** A desired entry for the runtime's tests. */
export function testEntry(aclId: string, ip: string, ttlSeconds = 600, userName = 'alice'): DesiredEntry {
  return { aclId, ip, ttlSeconds, userName };
}

/** A real agent logger (with its redaction) whose lines a test can read. */
export function capturedLogger(level: 'debug' | 'info' | 'trace' = 'debug') {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line !== ''),
      );
      done();
    },
  });
  const logger = createLogger(level, stream);
  return {
    logger,
    lines,
    /** Everything logged so far, as one string. */
    text: () => lines.join('\n'),
    /** The parsed lines whose msg contains `fragment`. */
    find: (fragment: string) =>
      lines
        .map((line) => JSON.parse(line) as Record<string, unknown> & { msg: string })
        .filter((line) => line.msg.includes(fragment)),
  };
}
