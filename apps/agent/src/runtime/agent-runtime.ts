import type { Logger } from 'pino';
import { AGENT_PROTOCOL_VERSION, type AgentCapabilities, type DesiredEntry, type EntryResult } from '@postern/protocol';
import type { AgentConfig } from '../config/config.js';
import { loadOrCreateAgentKey } from '../config/agent-key.js';
import type { Driver, DriverSet } from '../drivers/driver.js';
import { createDrivers } from '../drivers/index.js';
import { detectCapabilities } from '../capabilities/index.js';
import type { ApplyRetryOptions } from './apply-retries.js';
import { Backoff, DEFAULT_BACKOFF, type BackoffSettings } from './backoff.js';
import { systemClock, type Clock } from './clock.js';
import { errorMessage } from './driver-calls.js';
import { EntryStore, stateFileContentOf } from './entry-store.js';
import { FaultPoints } from './fault-points.js';
import { Reconciler } from './reconciler.js';
import { SerialQueue } from './serial-queue.js';
import { openingDrivers } from './sealed-secrets.js';
import { ServerConnection, type ServerLink } from './server-connection.js';
import { readRemovalJournal, RemovalJournal, removalJournalFile, replayRemovalJournal } from './removal-journal.js';
import { loadStateFile, type StateFileContent } from './state-file.js';
import { StateFileWriter } from './state-file-writer.js';
import { agentMetrics } from '../metrics/agent-metrics.js';

/** What {@link startAgentRuntime} needs; everything but config and logger has a real default. */
export interface AgentRuntimeOptions {
  config: AgentConfig;
  logger: Logger;
  /** The backend drivers; default: createDrivers(config). The runtime closes them when it stops. */
  drivers?: DriverSet;
  /** The host's capabilities, or how to detect them before each connection; default: detectCapabilities(config). */
  capabilities?: AgentCapabilities | (() => AgentCapabilities | Promise<AgentCapabilities>);
  /** Deadlines and the state file's wall-clock instants; tests drive a manual clock. */
  clock?: Clock;
  /** Reconnect timing (default 0.5 s doubling to 60 s) and when a connection counts as stable (30 s). */
  reconnect?: Partial<BackoffSettings> & { stableAfterMs?: number; random?: () => number };
  /** Test-only crash points (fault-points.ts); none unless a test asks. */
  faults?: FaultPoints;
  /** Back-off of failed-apply retries (default 2 s doubling to 2 min, full jitter); tests shorten it. */
  applyRetry?: Pick<ApplyRetryOptions, 'backoff' | 'random'>;
  /** How long one driver call may go without an answer (default 10 s); tests shorten it. */
  callBudgetMs?: number;
}

/** One entry the agent holds, as {@link AgentRuntime.snapshot} shows it. */
export interface HeldEntrySnapshot {
  aclId: string;
  ip: string;
  userName: string;
  /** Milliseconds until the local timer removes it (or retries a failed removal). */
  remainingMs: number;
  generation: number;
  /** Its removal is under way, or failed and is being retried. */
  removing: boolean;
  /** When the server says it ends, in the server's time (epoch ms), when known. */
  endsAt: number | undefined;
}

/** A copy of the runtime's state at one moment. */
export interface RuntimeSnapshot {
  generation: number;
  stateGeneration: number;
  /** The aclIds of the newest desired state's knocs. */
  knocIds: string[];
  entries: HeldEntrySnapshot[];
}

/** A running agent runtime. */
export interface AgentRuntime {
  /**
   * Stops reconnecting, closes the connection with 1000, waits for running operations, writes the
   * state file and closes the drivers. Entries stay on the devices: they carry their own device
   * timeouts, and the next start re-arms the timers from the state file.
   */
  stop(): Promise<void>;
  /** Whether the connection is open and hello was sent. */
  isConnected(): boolean;
  /** Resolves when the connection is (next) open; at once when it is open now. */
  whenConnected(): Promise<void>;
  /** Resolves when every operation queued so far (messages, expiries) has finished. */
  idle(): Promise<void>;
  snapshot(): RuntimeSnapshot;
}

/**
 * Starts the agent's work: loads its key (making the key file on the first start), loads the state
 * file (with the removal journal replayed over it) and puts its unexpired entries back on the devices
 * (removing expired ones) before any connection, starts the local expiry timers, then connects to
 * the server and converges to what it sends. Resolves once the restore is done and the first
 * connection attempt has started.
 */
export async function startAgentRuntime(options: AgentRuntimeOptions): Promise<AgentRuntime> {
  const { config, logger } = options;
  // First, before any device is touched: without its key the agent cannot connect at all.
  const { key, created } = loadOrCreateAgentKey(config.keyFile, 'keyFile');
  logger.info(
    { keyFile: config.keyFile, keyFingerprint: key.fingerprint },
    created ? 'created the agent key; the first connection enrols it' : 'loaded the agent key',
  );
  const clock = options.clock ?? systemClock;
  // The one place configs reach the drivers: secrets sealed to this agent are opened on the way in.
  const drivers = openingDrivers(options.drivers ?? createDrivers(config, logger), (sealed, place) =>
    key.open(sealed, place),
  );
  const capabilities = capabilitiesSource(options, config);
  const queue = new SerialQueue();

  let connection: ServerConnection | null = null;
  let stopped = false;
  // Counts every result (sent or not: an expiry while offline is a removal too), then sends it if it can.
  const sendResults = (link: Pick<ServerLink, 'send'> | null, generation: number, results: EntryResult[]) => {
    agentMetrics.entryResults(results, (aclId) => store.knocs.get(aclId)?.backendType);
    link?.send({ type: 'result', version: AGENT_PROTOCOL_VERSION, generation, results });
  };

  // Defined before the store, whose expiry timer calls it.
  const sweep = () => {
    void queue
      .run(() => reconciler.expireDue())
      .then((results) => {
        if (results.length > 0) {
          sendResults(connection?.connected === true ? connection : null, store.generation, results);
        }
      })
      .catch((error: unknown) => logger.error({ error: errorMessage(error) }, 'expiry failed'));
  };
  let writer: StateFileWriter | null = null;
  const faults = options.faults ?? FaultPoints.none;
  const store = new EntryStore(clock, sweep, () => writer?.markDirty());
  // The state file, then the removals written ahead since it was written (removal-journal.ts).
  let content: StateFileContent;
  let journal: RemovalJournal;
  try {
    const journalFile = removalJournalFile(config.stateFile);
    const loaded = await loadStateFile(config.stateFile, logger, clock.wallMs());
    const reading = await readRemovalJournal(journalFile, logger, clock.wallMs());
    const replayed = replayRemovalJournal(loaded, reading);
    content = replayed.content;
    journal = await RemovalJournal.open(config.stateFile, logger, reading, replayed.lastSeq);
  } catch (error) {
    store.stopTimers();
    await closeDrivers(drivers, logger);
    throw error;
  }
  const removalJournal = journal;
  writer = new StateFileWriter(
    config.stateFile,
    () => {
      faults.snapshotTaken();
      // Taken with the content: it includes every removal whose record has this number or a lower one.
      return { ...stateFileContentOf(store, clock), journalSeq: removalJournal.lastSeq };
    },
    logger,
    (written) => {
      faults.written();
      void removalJournal.covered(written.journalSeq ?? 0);
    },
  );
  const stateWriter = writer;
  // Removals are written ahead: the journal (or, when it cannot be written, the state file) holds
  // them before any driver is called. Failed applies are retried through the same queue, and
  // reported like any result.
  const reconciler = new Reconciler({
    store,
    drivers,
    clock,
    logger,
    writeAhead: async (entries) => {
      if (!(await removalJournal.append(entries))) await stateWriter.flush();
    },
    faults,
    retries: {
      enqueue: (job) => {
        if (stopped) return;
        void queue
          .run(job)
          .catch((error: unknown) => logger.error({ error: errorMessage(error) }, 'apply retry failed'));
      },
      report: (results) => sendResults(connection?.connected === true ? connection : null, store.generation, results),
      ...options.applyRetry,
    },
    ...(options.callBudgetMs === undefined ? {} : { callBudgetMs: options.callBudgetMs }),
  });

  try {
    await queue.run(() => reconciler.restore(content));
    await writer.flush();
  } catch (error) {
    store.stopTimers();
    await writer.stop();
    await journal.close();
    await closeDrivers(drivers, logger);
    throw error;
  }

  const connectedWaiters: (() => void)[] = [];
  connection = new ServerConnection({
    connectUrl: config.connectUrl,
    token: config.token,
    key,
    caFile: config.caFile,
    insecureSkipVerify: config.insecureSkipVerify,
    heartbeatMs: config.heartbeatSeconds * 1000,
    backoff: new Backoff({ ...DEFAULT_BACKOFF, ...options.reconnect }, options.reconnect?.random),
    ...(options.reconnect?.stableAfterMs === undefined ? {} : { stableAfterMs: options.reconnect.stableAfterMs }),
    logger,
    wallMs: () => clock.wallMs(),
    capabilities,
    applied: () => ({ generation: store.generation, applied: appliedEntries(store, clock) }),
    onMessage: (message, link) => {
      if (message.type !== 'state' && message.type !== 'apply') return;
      const receivedAtMs = clock.monotonicMs();
      void queue
        .run(() =>
          message.type === 'state'
            ? reconciler.applyState(message, receivedAtMs)
            : reconciler.applyIncrement(message, receivedAtMs),
        )
        .then((results) => sendResults(link, message.generation, results))
        .catch((error: unknown) =>
          logger.error(
            { error: errorMessage(error), generation: message.generation },
            `cannot apply a ${message.type}`,
          ),
        );
    },
    onConnectedChange: (connected) => {
      if (connected) for (const resolve of connectedWaiters.splice(0)) resolve();
    },
  });
  connection.start();

  // Between desired states nothing else notices a device losing a grant (or gaining an address).
  const driftCheck = () => {
    void queue
      .run(() => reconciler.repairDrift())
      .then((report) => {
        // A grant put back confirms itself; one the device refused shows as the grant's error.
        if (report.results.length > 0) {
          sendResults(connection?.connected === true ? connection : null, store.generation, report.results);
        }
      })
      .catch((error: unknown) => logger.error({ error: errorMessage(error) }, 'drift check failed'));
  };
  const driftTimer = config.driftCheckSeconds > 0 ? setInterval(driftCheck, config.driftCheckSeconds * 1000) : null;
  driftTimer?.unref();

  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      if (driftTimer !== null) clearInterval(driftTimer);
      reconciler.stopRetries();
      await connection.stop();
      // Expiries due from here on are done by the next start (from the state file) or the device.
      store.stopTimers();
      await queue.idle();
      await writer.stop();
      await removalJournal.close();
      await closeDrivers(drivers, logger);
    },
    isConnected: () => connection.connected,
    whenConnected: () =>
      connection.connected ? Promise.resolve() : new Promise<void>((resolve) => connectedWaiters.push(resolve)),
    idle: () => queue.idle(),
    snapshot: () => snapshotOf(store, clock),
  };
}

function capabilitiesSource(options: AgentRuntimeOptions, config: AgentConfig): () => Promise<AgentCapabilities> {
  const given = options.capabilities;
  if (given === undefined) return async () => detectCapabilities(config);
  if (typeof given === 'function') return async () => given();
  return () => Promise.resolve(given);
}

/** The entries hello reports: held, not being removed, with their remaining time in whole seconds. */
function appliedEntries(store: EntryStore, clock: Clock): DesiredEntry[] {
  const nowMs = clock.monotonicMs();
  const applied: DesiredEntry[] = [];
  for (const entry of store.entries.values()) {
    if (entry.removing) continue;
    const remainingMs = entry.deadlineMs - nowMs;
    if (remainingMs <= 0) continue;
    applied.push({
      aclId: entry.aclId,
      ip: entry.ip,
      userName: entry.userName,
      ttlSeconds: Math.max(1, Math.ceil(remainingMs / 1000)),
      ...(entry.endsAt === undefined ? {} : { endsAt: entry.endsAt }),
    });
  }
  return applied;
}

function snapshotOf(store: EntryStore, clock: Clock): RuntimeSnapshot {
  const nowMs = clock.monotonicMs();
  return {
    generation: store.generation,
    stateGeneration: store.stateGeneration,
    knocIds: [...store.knocs.keys()],
    entries: [...store.entries.values()].map((entry) => ({
      aclId: entry.aclId,
      ip: entry.ip,
      userName: entry.userName,
      remainingMs: entry.deadlineMs - nowMs,
      generation: entry.generation,
      removing: entry.removing,
      endsAt: entry.endsAt,
    })),
  };
}

async function closeDrivers(drivers: DriverSet, logger: Logger): Promise<void> {
  const unique = new Set<Driver>(drivers.values());
  for (const driver of unique) {
    try {
      await driver.close();
    } catch (error) {
      logger.warn({ backendType: driver.type, error: errorMessage(error) }, 'cannot close a driver');
    }
  }
}
