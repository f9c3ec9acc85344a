import type { Kysely } from 'kysely';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../lib/clock.js';
import { ServerMetrics } from '../metrics/server-metrics.js';
import type { Database } from '../store/schema.js';
import {
  CLOCK_OFFSET_THRESHOLD_MS,
  CLOCK_STEP_THRESHOLD_MS,
  CLOCK_STEPPED_SHOWN_MS,
  ClockWatch,
} from './clock-watch.js';

/** A watch on the embedded store (nothing to ask it: it shares this machine's clock). */
function watch(agentOffsets: number[] = []) {
  const clock = new ManualClock();
  const lines: { msg: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as { msg: string }) });
  const clockWatch = new ClockWatch({
    clock,
    monotonic: clock,
    // Never read: SQLite's clock is this machine's.
    db: undefined as unknown as Kysely<Database>,
    dialect: 'sqlite',
    logger,
    metrics: new ServerMetrics(),
    agents: { agentClockOffsets: () => agentOffsets },
  });
  return { clock, clockWatch, lines, agentOffsets };
}

describe('ClockWatch', () => {
  it('says stepped for 15 minutes after a step, then ok again', async () => {
    const { clock, clockWatch } = watch();
    await clockWatch.check();
    clock.step(-(CLOCK_STEP_THRESHOLD_MS + 1));
    await clockWatch.check();
    expect(clockWatch.health()).toBe('stepped');

    clock.advance(CLOCK_STEPPED_SHOWN_MS - 1);
    await clockWatch.check();
    expect(clockWatch.health()).toBe('stepped');
    clock.advance(1);
    expect(clockWatch.health()).toBe('ok');
  });

  it('takes a change of up to 5 s between checks for NTP slewing, not a step', async () => {
    const { clock, clockWatch, lines } = watch();
    await clockWatch.check();
    clock.step(CLOCK_STEP_THRESHOLD_MS);
    await clockWatch.check();
    expect(clockWatch.health()).toBe('ok');
    expect(lines.filter((line) => line.msg.includes('stepped'))).toEqual([]);
  });

  it('says offset while the agents’ median is more than 30 s away, logging the way in and out once each', async () => {
    const { clockWatch, lines, agentOffsets } = watch();
    agentOffsets.push(CLOCK_OFFSET_THRESHOLD_MS + 1_000, CLOCK_OFFSET_THRESHOLD_MS + 2_000, 0);
    await clockWatch.check();
    await clockWatch.check();
    expect(clockWatch.health()).toBe('offset');
    expect(clockWatch.offsets()).toEqual([{ reference: 'agents', seconds: 31 }]);

    agentOffsets.splice(0, agentOffsets.length, 1_000);
    await clockWatch.check();
    expect(clockWatch.health()).toBe('stepped');
    expect(lines.filter((line) => line.msg.includes('far from the reference')).length).toBe(1);
    expect(lines.filter((line) => line.msg.includes('back in bounds')).length).toBe(1);
  });
});
