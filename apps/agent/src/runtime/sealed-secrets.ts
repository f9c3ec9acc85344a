import type { AgentKnoc } from '@postern/protocol';
import { SealedValueError, isSealedValue, type SealedPlace } from '@postern/protocol/sealing';
import type { Driver, DriverEntry, DriverSet, EntryOutcome } from '../drivers/driver.js';
import { PermanentDriverError } from '../drivers/outcomes.js';

/**
 * Secrets sealed to this agent (vendor credentials, sensitive script variables) arrive and stay
 * sealed: in memory, in the state file, in logs. They are opened only here, on the way into a
 * driver, so a driver sees the plaintext and nothing else does.
 */

/** Opens a value sealed to this agent; throws SealedValueError. */
export type OpenSealed = (sealed: string, place: SealedPlace) => string;

/** A knoc with its secrets opened, or why one of them cannot be. */
export type OpenedKnoc = { ok: true; knoc: AgentKnoc } | { ok: false; error: string };

/**
 * The knoc as its driver needs it: every sealed backend field and script variable value opened. A
 * value that does not open makes the whole knoc unusable, with a reason naming the field (never any
 * part of a value). Values that are not sealed (an older server) pass through as they are.
 */
export function openKnoc(open: OpenSealed, knoc: AgentKnoc): OpenedKnoc {
  try {
    const backend: Record<string, unknown> = { ...knoc.backend };
    let changed = false;
    for (const [field, value] of Object.entries(backend)) {
      if (!isSealedValue(value)) continue;
      backend[field] = openField(open, value, { owner: 'backend', ownerId: knoc.backendId, field });
      changed = true;
    }
    const acl: Record<string, unknown> = { ...knoc.acl };
    const envVars = acl.EnvVars;
    if (Array.isArray(envVars)) {
      acl.EnvVars = envVars.map((variable: unknown) => {
        if (typeof variable !== 'object' || variable === null) return variable;
        const { Name, Value } = variable as { Name?: unknown; Value?: unknown };
        if (typeof Name !== 'string' || !isSealedValue(Value)) return variable;
        changed = true;
        const field = `EnvVars.${Name}`;
        return { ...variable, Value: openField(open, Value, { owner: 'knoc', ownerId: knoc.aclId, field }) };
      });
    }
    return { ok: true, knoc: changed ? ({ ...knoc, backend, acl } as AgentKnoc) : knoc };
  } catch (error) {
    if (error instanceof UnopenableField) return { ok: false, error: error.message };
    throw error;
  }
}

class UnopenableField extends Error {}

function openField(open: OpenSealed, value: string, place: SealedPlace): string {
  try {
    return open(value, place);
  } catch (error) {
    const reason = error instanceof SealedValueError ? error.reason : 'it does not open';
    const owner = place.owner === 'backend' ? "this knoc's backend" : 'this knoc';
    throw new UnopenableField(
      `this agent cannot open the secret ${place.field} of ${owner}: ${reason}; an administrator must re-enter it`,
    );
  }
}

/**
 * The drivers, each behind a door that opens the knoc's secrets before the call. Each knoc object
 * is opened once (the runtime keeps an unchanged knoc the same object), and the opened knoc is the
 * same object on every call, so drivers that compare knocs by identity still can. A knoc that does
 * not open fails each of its entries with the reason; its list and flush reject with it.
 */
export function openingDrivers(drivers: DriverSet, open: OpenSealed): DriverSet {
  const opened = new WeakMap<AgentKnoc, OpenedKnoc>();
  const openOnce = (knoc: AgentKnoc): OpenedKnoc => {
    let result = opened.get(knoc);
    if (result === undefined) {
      result = openKnoc(open, knoc);
      opened.set(knoc, result);
    }
    return result;
  };
  // One wrapper per driver, so a driver serving several types is still closed once.
  const wrappers = new Map<Driver, Driver>();
  const wrapped = new Map<AgentKnoc['backendType'], Driver>();
  for (const [type, driver] of drivers) {
    const wrapper = wrappers.get(driver) ?? openingDriver(driver, openOnce);
    wrappers.set(driver, wrapper);
    wrapped.set(type, wrapper);
  }
  return wrapped;
}

function openingDriver(driver: Driver, openOnce: (knoc: AgentKnoc) => OpenedKnoc): Driver {
  // Only an administrator re-entering the secret (a new knoc configuration) helps: not retried.
  const entriesFailed = (entries: readonly DriverEntry[], error: string): EntryOutcome[] =>
    entries.map((entry) => ({ ip: entry.ip, ok: false, error, permanent: true }));
  const required = (knoc: AgentKnoc): AgentKnoc => {
    const result = openOnce(knoc);
    if (!result.ok) throw new PermanentDriverError(result.error);
    return result.knoc;
  };
  // Calls whose failure has a shape of its own: per-entry outcomes, or the knocs that open.
  const special: Partial<Record<keyof Driver, unknown>> = {
    apply: async (knoc: AgentKnoc, entries: readonly DriverEntry[]) => {
      const result = openOnce(knoc);
      return result.ok ? driver.apply(result.knoc, entries) : entriesFailed(entries, result.error);
    },
    remove: async (knoc: AgentKnoc, entries: readonly DriverEntry[]) => {
      const result = openOnce(knoc);
      return result.ok ? driver.remove(result.knoc, entries) : entriesFailed(entries, result.error);
    },
  };
  const configure = driver.configure?.bind(driver);
  if (configure !== undefined) {
    special.configure = async (knocs: readonly AgentKnoc[]) => {
      const usable: AgentKnoc[] = [];
      const refused: string[] = [];
      for (const knoc of knocs) {
        const result = openOnce(knoc);
        if (result.ok) usable.push(result.knoc);
        else refused.push(`${knoc.aclId}: ${result.error}`);
      }
      await configure(usable);
      if (refused.length > 0) throw new Error(`cannot set up ${refused.join('; ')}`);
    };
  }
  // Every other method (list, flush, and whatever drivers learn later) gets its knoc arguments
  // opened, and rejects with the reason when one does not open: no driver call ever sees a sealed
  // value, and none is lost by this wrapper not knowing it.
  const openArgument = (value: unknown): unknown => {
    if (isKnoc(value)) return required(value);
    if (Array.isArray(value) && value.length > 0 && value.every(isKnoc)) return value.map(required);
    return value;
  };
  return new Proxy(driver, {
    get(target, property) {
      if (typeof property === 'string' && property in special) return special[property as keyof Driver];
      // Read and called on the driver itself, so its private fields work.
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as (...inner: unknown[]) => unknown;
      return (...args: unknown[]): unknown => {
        let opened: unknown[];
        try {
          opened = args.map(openArgument);
        } catch (error) {
          return Promise.reject(error instanceof Error ? error : new Error(String(error)));
        }
        return method.apply(target, opened);
      };
    },
  });
}

/** Whether a driver argument is a knoc configuration (what the runtime hands drivers). */
function isKnoc(value: unknown): value is AgentKnoc {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { aclId?: unknown }).aclId === 'string' &&
    typeof (value as { backendType?: unknown }).backendType === 'string' &&
    typeof (value as { backend?: unknown }).backend === 'object'
  );
}
