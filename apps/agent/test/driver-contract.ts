/**
 * The conformance suite every vendor driver runs against its contract fake (STRUCTURE "Agent: vendor
 * drivers"): apply is idempotent, removing an absent entry succeeds, list returns canonical
 * addresses, flush empties, one bad entry fails alone, a 401 leads to exactly one new login (a static
 * token: one clear failure, no retry loop), no secret appears in any outcome or log line, a
 * redirect to another host is refused, a device that stops answering fails the call (and the one
 * queued behind it) within the runtime's call budget, and the driver recovers when it answers again.
 * A driver's test file calls {@link describeDriverContract} with a setup that starts its fake.
 */
import type { AgentKnocOf, BackendType } from '@postern/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DriverKnoc } from '../src/drivers/driver.js';
import type { Driver, DriverEntry, EntryOutcome } from '../src/drivers/index.js';
import { callDriver } from '../src/runtime/driver-calls.js';
import { setLoopbackHang, startLoopbackServer, type LoopbackServer } from './support/loopback-server.js';
import { memoryLogger } from './support/memory-logger.js';

/** The fake device behind the driver, as the suite needs to see and steer it. */
export interface ContractDevice {
  /** The addresses the device holds for the knoc under Postern's marker, canonical, any order. */
  owned(): string[];
  /** What the device holds for the knoc without Postern's marker (must never change). */
  foreign(): string[];
  /** From now on the device refuses to store this one address. */
  refuse(ip: string): void;
  /** Every call is answered with a redirect to `url` (another host); null answers normally again. */
  redirectTo(url: string | null): void;
  /**
   * The credential the driver holds stops working: a static token is revoked for good; a login
   * session expires (a new login works).
   */
  invalidateCredential(): void;
  /** Requests the device has received. */
  requestCount(): number;
  /** New credentials the device has issued: logins and token refreshes (session-login drivers only). */
  loginCount?(): number;
  /**
   * For drivers that keep one named object per address: someone else makes the object Postern would
   * name for `ip`, opening every address (0.0.0.0/0), in the knoc's group or not.
   */
  impostor?(ip: string, options: { inGroup: boolean }): void;
  /**
   * For drivers that keep grants in a device group: from now on the knoc's group holds nothing but
   * what Postern puts in it, and the device refuses to leave a group empty (as FortiOS and FMC do;
   * Sophos devices are told to refuse).
   */
  groupOfPosternOnly?(): void;
  /**
   * The device stops answering (true: requests are received and never answered) or answers again
   * (false). Default: every loopback server of the test file hangs (`setLoopbackHang`), which covers
   * every fake built on `startLoopbackServer`; a fake served otherwise provides its own.
   */
  hang?(on: boolean): void;
}

export interface ContractSubject<T extends BackendType> {
  driver: Driver<T>;
  knoc: DriverKnoc<T>;
  device: ContractDevice;
  /** Every log line the driver wrote (JSON). */
  logLines: string[];
  /** The strings that must never appear in an outcome, an error or a log line. */
  secrets: string[];
  auth: 'static-token' | 'session-login';
  /**
   * What a refused static credential's outcome says (default /401/). XML APIs answer otherwise:
   * PAN-OS says HTTP 403 "Invalid Credential".
   */
  refusedCredential?: RegExp;
  /** Whether the driver handles IPv6 entries on this knoc. */
  ipv6: boolean;
  close(): Promise<void>;
}

/**
 * What every contract setup starts from: the driver options (a logger the suite reads, short
 * timeouts, near-instant back-off) and the log lines to hand back as `logLines`.
 */
export function contractDriverOptions() {
  const { logger, lines } = memoryLogger();
  return { options: { logger, timeoutMs: 2_000, retry: { baseMs: 1, capMs: 5 } }, logLines: lines };
}

/** The knoc every contract test grants on: one ACL of the vendor's type on one backend. */
export function contractKnoc<T extends BackendType>(
  backendType: T,
  knoc: Pick<AgentKnocOf<T>, 'name' | 'url' | 'backend' | 'acl'>,
): AgentKnocOf<T> {
  return { aclId: 'acl-contract', backendId: 'backend-contract', backendType, ...knoc };
}

/** A subject's close: the driver first (it may still be talking to the fake), then the fake. */
export function closeDriverAndFake(driver: { close(): Promise<void> }, fake: { close(): Promise<void> }) {
  return async (): Promise<void> => {
    await driver.close();
    await fake.close();
  };
}

const entry = (ip: string): DriverEntry => ({ ip, ttlSeconds: 600, userName: 'contract' });
/**
 * The call budget of the hang cases: short, so the suite stays fast. Only calls to a device that
 * hangs run under it; nothing asserts how long anything took.
 */
const HANG_BUDGET_MS = 300;
const sorted = (values: readonly string[]) => [...values].sort();

/** Runs a driver call, turning a throw (the driver cannot work at all) into one failed outcome per entry, as the runtime does. */
async function outcomesOf(call: Promise<EntryOutcome[]>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
  try {
    return await call;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return entries.map(({ ip }) => ({ ip, ok: false, error: message }));
  }
}

export function describeDriverContract<T extends BackendType>(
  name: string,
  setup: () => Promise<ContractSubject<T>>,
): void {
  describe(`${name} driver contract`, () => {
    let subject: ContractSubject<T>;
    let otherHost: LoopbackServer;
    let otherHostHits = 0;
    /** Every outcome and error text the tests saw, checked for secrets after each test. */
    let texts: string[] = [];

    const apply = async (ips: readonly string[]) => {
      const entries = ips.map(entry);
      const outcomes = await outcomesOf(subject.driver.apply(subject.knoc, entries), entries);
      texts.push(...outcomes.map((outcome) => JSON.stringify(outcome)));
      return outcomes;
    };
    const remove = async (ips: readonly string[]) => {
      const entries = ips.map(entry);
      const outcomes = await outcomesOf(subject.driver.remove(subject.knoc, entries), entries);
      texts.push(...outcomes.map((outcome) => JSON.stringify(outcome)));
      return outcomes;
    };
    const v6 = (ip: string) => (subject.ipv6 ? [ip] : []);
    /** A driver call as the runtime makes it: through callDriver, under a call budget of `budgetMs`. */
    const applyAsRuntime = async (ips: readonly string[], budgetMs: number) => {
      const drivers = new Map<BackendType, Driver>([[subject.driver.type, subject.driver as unknown as Driver]]);
      const outcomes = await callDriver(drivers, 'apply', subject.knoc as never, ips.map(entry), budgetMs);
      texts.push(...outcomes.map((outcome) => JSON.stringify(outcome)));
      return outcomes;
    };
    const hang = (on: boolean) => (subject.device.hang ?? setLoopbackHang)(on);

    beforeEach(async () => {
      texts = [];
      otherHostHits = 0;
      otherHost = await startLoopbackServer((_req, res) => {
        otherHostHits++;
        res.writeHead(200).end('{}');
      });
      subject = await setup();
    });

    afterEach(async () => {
      hang(false);
      await subject.close();
      await otherHost.close();
      const everything = [...texts, ...subject.logLines].join('\n');
      for (const secret of subject.secrets) {
        expect(everything).not.toContain(secret);
        expect(everything).not.toContain(encodeURIComponent(secret));
      }
    });

    it('never grants through an object under Postern’s name that opens more, and takes it out of the group', async (context) => {
      const { device } = subject;
      if (device.impostor === undefined) return context.skip('the driver keeps no named object per address');
      device.impostor('192.0.2.80', { inGroup: true });
      device.impostor('192.0.2.81', { inGroup: false });
      expect(await subject.driver.list(subject.knoc)).toEqual([]);

      const outcomes = await apply(['192.0.2.80', '192.0.2.81', '192.0.2.82']);

      expect(outcomes.map((outcome) => outcome.ok)).toEqual([false, false, true]);
      for (const outcome of outcomes.slice(0, 2)) expect(outcome.error).toMatch(/opens 0\.0\.0\.0\/0, not/);
      expect(subject.device.owned()).toEqual(['192.0.2.82']);
      expect(await subject.driver.list(subject.knoc)).toEqual(['192.0.2.82']);
    });

    it('revoking the last address leaves the group valid, holding nothing of Postern’s', async (context) => {
      const { device } = subject;
      if (device.groupOfPosternOnly === undefined) return context.skip('the driver keeps no device group');
      device.groupOfPosternOnly();
      expect((await apply(['192.0.2.90']))[0]?.ok).toBe(true);
      expect(device.owned()).toEqual(['192.0.2.90']);

      expect(await remove(['192.0.2.90'])).toEqual([{ ip: '192.0.2.90', ok: true, error: '' }]);

      expect(device.owned()).toEqual([]);
      expect(await subject.driver.list(subject.knoc)).toEqual([]);
      expect((await apply(['192.0.2.91']))[0]?.ok).toBe(true);
      expect(device.owned()).toEqual(['192.0.2.91']);
      expect(await subject.driver.list(subject.knoc)).toEqual(['192.0.2.91']);
    });

    it('apply is idempotent', async () => {
      const ips = ['192.0.2.10', '198.51.100.0/24', ...v6('2001:db8::10')];
      expect((await apply(ips)).map((o) => o.ok)).toEqual(ips.map(() => true));
      expect((await apply(ips)).map((o) => o.ok)).toEqual(ips.map(() => true));
      expect(sorted(subject.device.owned())).toEqual(sorted(ips));
      expect(sorted(await subject.driver.list(subject.knoc))).toEqual(sorted(ips));
    });

    it('removing an absent entry succeeds', async () => {
      expect(await remove(['192.0.2.77', ...v6('2001:db8::77')])).toEqual(
        ['192.0.2.77', ...v6('2001:db8::77')].map((ip) => ({ ip, ok: true, error: '' })),
      );
      await apply(['192.0.2.78']);
      expect((await remove(['192.0.2.78']))[0]?.ok).toBe(true);
      expect((await remove(['192.0.2.78']))[0]?.ok).toBe(true);
      expect(subject.device.owned()).toEqual([]);
    });

    it('list returns canonical addresses', async () => {
      const written = ['192.0.2.5/32', ...v6('2001:DB8:0:0::5'), '10.20.0.0/16'];
      expect((await apply(written)).every((o) => o.ok)).toBe(true);
      expect(sorted(await subject.driver.list(subject.knoc))).toEqual(
        sorted(['192.0.2.5', ...v6('2001:db8::5'), '10.20.0.0/16']),
      );
    });

    it('flush empties what Postern owns and nothing else', async () => {
      const foreign = sorted(subject.device.foreign());
      await apply(['192.0.2.30', '192.0.2.31', ...v6('2001:db8::31')]);
      await subject.driver.flush(subject.knoc);
      expect(await subject.driver.list(subject.knoc)).toEqual([]);
      expect(subject.device.owned()).toEqual([]);
      expect(sorted(subject.device.foreign())).toEqual(foreign);
    });

    it('one bad entry fails alone', async () => {
      subject.device.refuse('192.0.2.66');
      const outcomes = await apply(['192.0.2.40', 'not-an-address', '192.0.2.66', '192.0.2.41']);
      expect(outcomes.map((o) => [o.ip, o.ok])).toEqual([
        ['192.0.2.40', true],
        ['not-an-address', false],
        ['192.0.2.66', false],
        ['192.0.2.41', true],
      ]);
      expect(outcomes[2]?.error).not.toBe('');
      expect(sorted(await subject.driver.list(subject.knoc))).toEqual(['192.0.2.40', '192.0.2.41']);
    });

    it('a refused credential: one new login for a session, one clear failure for a static token', async () => {
      await apply(['192.0.2.50']);
      subject.device.invalidateCredential();
      const before = subject.device.requestCount();
      if (subject.auth === 'session-login') {
        const logins = subject.device.loginCount?.() ?? 0;
        expect((await apply(['192.0.2.51']))[0]?.ok).toBe(true);
        expect((subject.device.loginCount?.() ?? 0) - logins).toBe(1);
        // The new session is kept: further calls log in no more.
        expect((await apply(['192.0.2.52']))[0]?.ok).toBe(true);
        expect(sorted(await subject.driver.list(subject.knoc))).toEqual(['192.0.2.50', '192.0.2.51', '192.0.2.52']);
        expect((subject.device.loginCount?.() ?? 0) - logins).toBe(1);
      } else {
        const [outcome] = await apply(['192.0.2.51']);
        expect(outcome?.ok).toBe(false);
        expect(outcome?.error).toMatch(subject.refusedCredential ?? /401/);
        // The device refused the token once; the driver did not ask again.
        expect(subject.device.requestCount() - before).toBe(1);
      }
    });

    it('no secret appears in any outcome or log line, whatever fails', async () => {
      subject.device.refuse('192.0.2.67');
      await apply(['192.0.2.60', '192.0.2.67', 'bogus']);
      subject.device.redirectTo(`${otherHost.url}/`);
      await apply(['192.0.2.61']);
      subject.device.redirectTo(null);
      subject.device.invalidateCredential();
      await apply(['192.0.2.62']);
      await remove(['192.0.2.60']);
      expect(subject.logLines.length + texts.length).toBeGreaterThan(0);
      // The check itself runs after every test (afterEach), over every outcome and log line.
    });

    it('a device that stops answering gives a visible error within the budget, and a second grant on the same knoc queued behind it does too', async () => {
      hang(true);
      const [first, second] = await Promise.all([
        applyAsRuntime(['192.0.2.100'], HANG_BUDGET_MS),
        applyAsRuntime(['192.0.2.101'], HANG_BUDGET_MS),
      ]);
      for (const outcome of [...first, ...second]) {
        expect(outcome.ok).toBe(false);
        expect(outcome.error).toMatch(/no answer within 300 ms \(call budget spent\)/);
        // A device that does not answer may answer later: the runtime retries.
        expect(outcome.permanent).toBeUndefined();
      }
      hang(false);
      expect(subject.device.owned()).toEqual([]);
    });

    it('after a transient failure the same apply succeeds once the device answers again', async () => {
      hang(true);
      const [lost] = await applyAsRuntime(['192.0.2.110', ...v6('2001:db8::110')], HANG_BUDGET_MS);
      expect(lost?.ok).toBe(false);
      expect(lost?.permanent).toBeUndefined();
      hang(false);
      const ips = ['192.0.2.110', ...v6('2001:db8::110')];
      expect((await applyAsRuntime(ips, 10_000)).map((outcome) => outcome.ok)).toEqual(ips.map(() => true));
      expect(sorted(subject.device.owned())).toEqual(sorted(ips));
      expect(sorted(await subject.driver.list(subject.knoc))).toEqual(sorted(ips));
    });

    it('a redirect to another host is refused, and nothing reaches that host', async () => {
      subject.device.redirectTo(`${otherHost.url}/`);
      const [outcome] = await apply(['192.0.2.90']);
      expect(outcome?.ok).toBe(false);
      expect(outcome?.error).toMatch(/redirect.*another host/);
      await expect(subject.driver.list(subject.knoc)).rejects.toThrow(/redirect/);
      expect(otherHostHits).toBe(0);
    });
  });
}
