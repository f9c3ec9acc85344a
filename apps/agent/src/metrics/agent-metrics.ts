import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { EntryResult } from '@postern/protocol';

/**
 * The outcome of one vendor API call, as the HTTP client sees it: `ok` (2xx), `duplicate` (409 on a
 * create), `absent` (404 on a delete), `throttled` (429 or 503), `error` (any other answer, or none).
 * A vendor that spells "already exists" another way (FortiOS's error -5 in a 500) shows as error here.
 */
export type VendorApiOutcome = 'ok' | 'duplicate' | 'absent' | 'throttled' | 'error';

/**
 * The agent's own Prometheus metrics (postern_agent_*; SCALE-OUT.md, "Metrics"). An agent is one
 * process, so one set ({@link agentMetrics}) that the drivers and the runtime count into. Labels are
 * bounded: backend types, vendor names, directions and results; never an address or a grant.
 */
export class AgentMetrics {
  readonly registry = new Registry();
  readonly #applied: Counter<'backend_type' | 'result'>;
  readonly #removed: Counter<'backend_type' | 'result'>;
  readonly #drift: Counter<'backend_type' | 'direction'>;
  readonly #vendorRequests: Counter<'vendor' | 'outcome'>;
  readonly #raisesRefused: Counter<'backend_type'>;
  readonly #applyRetries: Counter<'backend_type' | 'result'>;
  #connected: () => boolean = () => false;
  #processMetrics = false;

  constructor() {
    const registers = [this.registry];
    // `collect` runs on every scrape, with the gauge as `this`.
    const connected = () => this.#connected();
    new Gauge({
      name: 'postern_agent_connected',
      help: '1 while the agent holds a connection to the Postern server, else 0.',
      registers,
      collect() {
        this.set(connected() ? 1 : 0);
      },
    });
    this.#applied = new Counter({
      name: 'postern_agent_grants_applied_total',
      help: 'Entries the agent put on a device (grants, and grants put back after drift), by result.',
      labelNames: ['backend_type', 'result'],
      registers,
    });
    this.#removed = new Counter({
      name: 'postern_agent_grants_removed_total',
      help: 'Entries the agent took off a device (revokes and expiries), by result.',
      labelNames: ['backend_type', 'result'],
      registers,
    });
    this.#drift = new Counter({
      name: 'postern_agent_reconcile_drift_total',
      help: 'Drift repaired between desired states: added (a lost grant put back), removed (an address nobody granted).',
      labelNames: ['backend_type', 'direction'],
      registers,
    });
    this.#vendorRequests = new Counter({
      name: 'postern_agent_vendor_api_requests_total',
      help: 'Vendor API calls by vendor and outcome (ok, duplicate, absent, throttled, error).',
      labelNames: ['vendor', 'outcome'],
      registers,
    });
    this.#applyRetries = new Counter({
      name: 'postern_agent_apply_retries_total',
      help: 'Entries whose failed apply the agent tried again on its own (after a passing device error), by result of the retry.',
      labelNames: ['backend_type', 'result'],
      registers,
    });
    this.#raisesRefused = new Counter({
      name: 'postern_agent_raises_refused_total',
      help: 'Entries whose end a server message (or a restart) would have moved later without an extension, kept at the earlier end (a clock set back?); once per entry.',
      labelNames: ['backend_type'],
      registers,
    });
  }

  /** Adds prom-client's process metrics as postern_agent_* (once; the running agent only). */
  collectProcessMetrics(): void {
    if (this.#processMetrics) return;
    this.#processMetrics = true;
    collectDefaultMetrics({ register: this.registry, prefix: 'postern_agent_' });
  }

  /** Where the connected gauge reads from. */
  watchConnection(connected: () => boolean): void {
    this.#connected = connected;
  }

  /** Counts the results the agent reports, by the backend type of each result's knoc. */
  entryResults(results: readonly EntryResult[], backendTypeOf: (aclId: string) => string | undefined): void {
    for (const result of results) {
      const labels = { backend_type: backendTypeOf(result.aclId) ?? 'unknown', result: result.ok ? 'ok' : 'error' };
      (result.action === 'add' ? this.#applied : this.#removed).inc(labels);
    }
  }

  driftRepaired(backendType: string, direction: 'added' | 'removed', count: number): void {
    if (count > 0) this.#drift.inc({ backend_type: backendType, direction }, count);
  }

  /** An entry's end was kept where it was instead of moving later (see runtime/deadline-rule.ts). */
  raiseRefused(backendType: string): void {
    this.#raisesRefused.inc({ backend_type: backendType });
  }

  /** One round of apply retries on a knoc: how many entries it applied, how many failed again. */
  applyRetried(backendType: string, ok: number, failed: number): void {
    if (ok > 0) this.#applyRetries.inc({ backend_type: backendType, result: 'ok' }, ok);
    if (failed > 0) this.#applyRetries.inc({ backend_type: backendType, result: 'error' }, failed);
  }

  vendorRequest(vendor: string, outcome: VendorApiOutcome): void {
    this.#vendorRequests.inc({ vendor, outcome });
  }

  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** The process's metrics. */
export const agentMetrics = new AgentMetrics();

/** The outcome of a vendor call from its method and HTTP status (see {@link VendorApiOutcome}). */
export function vendorApiOutcome(method: string, status: number): VendorApiOutcome {
  if (status >= 200 && status <= 299) return 'ok';
  if (status === 429 || status === 503) return 'throttled';
  if (status === 409 && method === 'POST') return 'duplicate';
  if (status === 404 && method === 'DELETE') return 'absent';
  return 'error';
}
