import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConfigFixture, VALID_TOKEN, type ConfigFixture } from './test-support/config-fixture.js';
import { describeConfig } from './config/describe.js';
import { createLogger } from './logger.js';

let f: ConfigFixture;
beforeEach(() => {
  f = createConfigFixture();
});
afterEach(() => {
  f.remove();
});

/** A logger writing into memory, and the lines it wrote. */
function memoryLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger('info', destination), lines };
}

describe('logger', () => {
  it('never writes the token, however the configuration is logged', () => {
    const { config } = f.load();
    const { logger, lines } = memoryLogger();

    logger.info({ config: describeConfig(config) }, 'effective configuration');
    logger.info({ config }, 'whole configuration');
    logger.info({ token: VALID_TOKEN, headers: { authorization: `Bearer ${VALID_TOKEN}` } }, 'careless later code');

    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).not.toContain(VALID_TOKEN);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed[0]).toMatchObject({ service: 'postern-agent', config: { token: '[set]' } });
    expect(parsed[2]).toMatchObject({ token: '[set]', headers: { authorization: '[redacted]' } });
  });
});
