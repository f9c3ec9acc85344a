import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '@postern/test-support';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenAgent } from '../test-support/agent-factories.js';
import { FakeAgent } from '../test-support/fake-agent.js';

const HOUR = 3_600_000;

/** The value of one sample of a scrape, by its exact name and labels (`name{a="b"}`), or undefined. */
function sampleOf(body: string, series: string): number | undefined {
  const line = body.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.each(bothStores())('clock checks (%s)', (kind) => {
  const t = useTestApp(kind, { listen: true });
  const agents: FakeAgent[] = [];
  /** The true time: the test clock's wall time before any step, moving with its monotonic clock. */
  let trueNow: () => number;

  beforeEach(() => {
    // The store's clock (PostgreSQL) is the machine's: start the test clock there too.
    t.clock.advance(Date.now() - t.clock.now());
    const origin = t.clock.now() - t.clock.monotonicMs();
    trueNow = () => origin + t.clock.monotonicMs();
  });
  afterEach(async () => {
    for (const agent of agents.splice(0)) await agent.disconnect();
  });

  /** A connected agent whose clock is `skewMs` off the true time. */
  async function agentWithClock(skewMs: number | null): Promise<FakeAgent> {
    const created = await givenAgent(t.ctx);
    const agent = new FakeAgent(t.baseUrl, created.token);
    agent.wallClock = skewMs === null ? null : () => trueNow() + skewMs;
    agents.push(agent);
    await agent.connect();
    return agent;
  }

  const readyz = async () => {
    const response = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ data: { Status: string; Clock: string } }>().data;
  };
  const scrape = async () => (await t.ctx.metrics.scrape()).body;

  it('says ok and reports the median offset of the agents that tell their clock while the clocks agree', async () => {
    await agentWithClock(2_000);
    await agentWithClock(4_000);
    await agentWithClock(20_000);
    await agentWithClock(null);

    await t.clockWatch.check();

    expect(await readyz()).toEqual({ Status: 'ready', Clock: 'ok' });
    const body = await scrape();
    expect(sampleOf(body, 'postern_clock_offset_seconds{reference="agents"}')).toBe(4);
    const store = sampleOf(body, 'postern_clock_offset_seconds{reference="store"}');
    // SQLite runs in this process on this machine's clock: there is nothing to measure.
    if (kind === 'sqlite') expect(store).toBeUndefined();
    else expect(Math.abs(store ?? Infinity)).toBeLessThan(5);
    expect(body).not.toMatch(/^postern_clock_steps_total\{/m);
  });

  it('detects the server clock set back an hour: a step against its own clock, the store’s and the agents’', async () => {
    const agent = await agentWithClock(0);
    await t.clockWatch.check();

    t.clock.step(-HOUR);
    agent.heartbeat();
    await waitFor(() => (t.hub.agentClockOffsets()[0] ?? 0) > HOUR - 5_000, 'the heartbeat after the step');
    await t.clockWatch.check();

    expect(await readyz()).toEqual({ Status: 'ready', Clock: 'offset' });
    const body = await scrape();
    expect(sampleOf(body, 'postern_clock_steps_total{reference="monotonic"}')).toBe(1);
    expect(sampleOf(body, 'postern_clock_steps_total{reference="agents"}')).toBe(1);
    expect(Math.round(sampleOf(body, 'postern_clock_offset_seconds{reference="agents"}') ?? 0)).toBe(3600);
    if (kind === 'postgres') {
      expect(sampleOf(body, 'postern_clock_steps_total{reference="store"}')).toBe(1);
      expect(Math.round((sampleOf(body, 'postern_clock_offset_seconds{reference="store"}') ?? 0) / 10)).toBe(360);
    } else {
      expect(sampleOf(body, 'postern_clock_steps_total{reference="store"}')).toBeUndefined();
    }
  });

  it('says stepped, and stays ready, after a step too small to leave an offset', async () => {
    await t.clockWatch.check();

    t.clock.step(10_000);
    await t.clockWatch.check();

    expect(await readyz()).toEqual({ Status: 'ready', Clock: 'stepped' });
    expect(sampleOf(await scrape(), 'postern_clock_steps_total{reference="monotonic"}')).toBe(1);
  });
});
