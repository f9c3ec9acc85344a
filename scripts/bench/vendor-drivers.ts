// The vendor drivers' figures (issue 15 item 6), run by scripts/bench/vendors.mjs through tsx: the
// driver and the contract fake come from source, like the agent's tests. Prints one JSON line:
// - grant → applied on the FortiOS fake: one entry's apply (group read, Postern's objects read, object,
//   member, read-back), and the agent's own overhead on top of the fake's answers (apply time minus
//   the same number of plain HTTP round trips to the fake);
// - a 1,000-grant reconcile against the fake: one apply of 1,000 entries into an empty group.
import { request } from 'node:http';
import pino from 'pino';
import { FortiosFake } from '../../apps/agent/test/fakes/fortios-fake.js';
import { FortiosDriver } from '../../apps/agent/src/drivers/vendors/fortios/fortios-driver.js';

const TOKEN = 'bench-token-4e1d';
const SAMPLES = 200;
const RECONCILE_ENTRIES = 1_000;

const fake = await FortiosFake.start({ token: TOKEN });
const driver = new FortiosDriver({ logger: pino({ level: 'silent' }) });
const knoc = (group: string) => ({
  aclId: `acl-${group}`,
  name: group,
  url: '',
  backendId: 'backend-bench',
  backendType: 'fortios' as const,
  backend: { Url: fake.url, Bearer: TOKEN, Insecure: false, Prefix: 'kk_', VDOM: '' },
  acl: { Name: group },
});
const address = (index: number) => `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`;

/** One GET to the fake with nothing in the way: what a device answer costs here. */
function roundTrip(): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      `${fake.url}/api/v2/cmdb/firewall/addrgrp/latency`,
      { headers: { authorization: `Bearer ${TOKEN}` } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(performance.now() - started));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

try {
  fake.addGroup('latency', { members: ['none'] });
  const single = knoc('latency');
  const applyMs: number[] = [];
  const calls: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    const before = fake.requests.length;
    const started = performance.now();
    const [outcome] = await driver.apply(single, [{ ip: address(i + 1), ttlSeconds: 3600, userName: 'bench' }]);
    applyMs.push(performance.now() - started);
    calls.push(fake.requests.length - before);
    if (outcome?.ok !== true) throw new Error(`apply failed: ${outcome?.error ?? 'no outcome'}`);
  }
  const roundTrips: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) roundTrips.push(await roundTrip());
  const callsPerGrant = median(calls);

  fake.addGroup('reconcile', { members: ['none'] });
  const entries = Array.from({ length: RECONCILE_ENTRIES }, (_, i) => ({
    ip: address(100_000 + i),
    ttlSeconds: 3600,
    userName: 'bench',
  }));
  const started = performance.now();
  const outcomes = await driver.apply(knoc('reconcile'), entries);
  const reconcileMs = performance.now() - started;
  if (outcomes.some((outcome) => !outcome.ok)) throw new Error('the reconcile left entries unapplied');

  console.log(
    JSON.stringify({
      grantMedianMs: median(applyMs),
      callsPerGrant,
      roundTripMedianMs: median(roundTrips),
      overheadMedianMs: median(applyMs) - callsPerGrant * median(roundTrips),
      reconcileMs,
      reconcileEntries: RECONCILE_ENTRIES,
    }),
  );
} finally {
  await driver.close();
  await fake.close();
}
