import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parseAddress, type ParsedAddress } from '../addresses.js';
import { ConntrackFlows, netmask } from './conntrack.js';
import { fakeRunner } from './fake-runner.test-support.js';

const address = (value: string): ParsedAddress => {
  const parsed = parseAddress(value);
  if (parsed === null) throw new Error(`not an address: ${value}`);
  return parsed;
};

/** A logger that keeps its warnings. */
function recordingLogger() {
  const warnings: string[] = [];
  const logger = pino(
    { level: 'warn' },
    { write: (line: string) => warnings.push((JSON.parse(line) as { msg: string }).msg) },
  );
  return { logger, warnings };
}

const NOTHING = { code: 1, stderr: 'conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted.\n' };

describe('ConntrackFlows', () => {
  it("deletes the address's TCP entries for each of the rule's ports", async () => {
    const fake = fakeRunner(() => ({
      stderr: 'conntrack v1.4.7 (conntrack-tools): 1 flow entries have been deleted.\n',
    }));
    const { logger, warnings } = recordingLogger();

    await new ConntrackFlows({ command: ['conntrack'], logger, run: fake.run }).end(
      [address('203.0.113.7')],
      [22, 443],
    );

    expect(fake.seen.map((run) => run.argv)).toEqual([
      ['conntrack', '-D', '-p', 'tcp', '-s', '203.0.113.7', '--dport', '22'],
      ['conntrack', '-D', '-p', 'tcp', '-s', '203.0.113.7', '--dport', '443'],
    ]);
    expect(warnings).toEqual([]);
  });

  it('takes exit status 1 with "0 flow entries" as success: there was nothing to end', async () => {
    const fake = fakeRunner(() => NOTHING);
    const { logger, warnings } = recordingLogger();

    await new ConntrackFlows({ command: ['conntrack'], logger, run: fake.run }).end([address('2001:db8::7')], [22]);

    expect(fake.seen[0]?.argv).toEqual(['conntrack', '-D', '-p', 'tcp', '-s', '2001:db8::7', '--dport', '22']);
    expect(warnings).toEqual([]);
  });

  it('logs a failure instead of throwing, and still tries the other ports', async () => {
    const fake = fakeRunner((argv) =>
      argv.includes('22')
        ? { code: 1, stderr: 'conntrack v1.4.7 (conntrack-tools): Operation not permitted\n' }
        : NOTHING,
    );
    const { logger, warnings } = recordingLogger();

    await new ConntrackFlows({ command: ['conntrack'], logger, run: fake.run }).end([address('203.0.113.7')], [22, 80]);

    expect(fake.seen).toHaveLength(2);
    expect(warnings).toEqual(['conntrack could not end the connections of a revoked address']);
  });

  it('logs when conntrack cannot be started at all', async () => {
    const { logger, warnings } = recordingLogger();
    const run = () => Promise.reject(new Error('spawn conntrack ENOENT'));

    await new ConntrackFlows({ command: ['conntrack'], logger, run }).end([address('203.0.113.7')], [22]);

    expect(warnings).toEqual(['conntrack could not be run to end the connections of a revoked address']);
  });

  it('names a network by its address and mask', async () => {
    const fake = fakeRunner(() => NOTHING);

    await new ConntrackFlows({ command: ['conntrack'], logger: pino({ level: 'silent' }), run: fake.run }).end(
      [address('198.51.100.0/24')],
      [22],
    );

    expect(fake.seen[0]?.argv).toEqual([
      'conntrack',
      '-D',
      '-p',
      'tcp',
      '-s',
      '198.51.100.0',
      '--mask-src',
      '255.255.255.0',
      '--dport',
      '22',
    ]);
  });

  it.each([
    ['10.0.0.0/8', '255.0.0.0'],
    ['10.16.0.0/12', '255.240.0.0'],
    ['2001:db8::/32', 'ffff:ffff::'],
    ['2001:db8:8000::/33', 'ffff:ffff:8000::'],
  ])('writes the mask of %s as %s', (network, mask) => {
    expect(netmask(address(network))).toBe(mask);
  });
});
