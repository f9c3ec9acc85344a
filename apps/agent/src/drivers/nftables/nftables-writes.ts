import type { ParsedAddress } from '../addresses.js';
import {
  allowedSetKey,
  elementCommand,
  elementValue,
  isGlobalNftError,
  setLabel,
  type ListedSet,
  type NftCommand,
  type NftSetRef,
} from './nft-json.js';

/** One element to write: the entries it stands for (by index), its set, address and timeout. */
export interface NftOperation {
  indices: number[];
  set: NftSetRef;
  address: ParsedAddress;
  /** Seconds, already clamped (never 0: nft reads 0 as permanent). */
  timeout: number;
}

export type WriteMode = 'apply' | 'remove';

/** A set read back, or what nft said when it could not be. */
export type SetReading = { set: ListedSet } | { error: string };

/** How the writes reach nft: one batch (null when the kernel took it, else nft's error), one set listing. */
export interface NftIo {
  batch(commands: readonly NftCommand[]): Promise<string | null>;
  readSet(set: NftSetRef): Promise<SetReading>;
}

/** An element of a removal's first add lives this long, should the delete after it ever not run. */
const REMOVAL_PLACEHOLDER_TIMEOUT = 1;

/**
 * The commands of one write, grouped per set. apply: add + delete + add (the second add sets the new
 * timeout whether the element was there or not); remove: add + delete (the delete never meets an
 * absent element). Each add carries a timeout; no element is ever written without one.
 */
export function writeCommands(operations: readonly NftOperation[], mode: WriteMode): NftCommand[] {
  const commands: NftCommand[] = [];
  for (const ops of groupBySet(operations).values()) {
    const set = ops[0]?.set;
    if (set === undefined) continue;
    const values = ops.map((op) => ({ val: elementValue(op.address) }));
    const timed = ops.map((op) => ({
      val: elementValue(op.address),
      timeout: mode === 'apply' ? op.timeout : REMOVAL_PLACEHOLDER_TIMEOUT,
    }));
    commands.push(elementCommand('add', set, timed), elementCommand('delete', set, values));
    if (mode === 'apply') commands.push(elementCommand('add', set, timed));
  }
  return commands;
}

/**
 * Writes the operations in one batch and returns the ones that failed, with why. nft applies a batch
 * all or nothing and does not say which element it stopped at, so after a failure: each set on its
 * own (one broken set keeps no other out), then a set's own problem (absent, no `flags timeout`, the
 * other address family) on all its entries at once, then halves of the rest until each bad element
 * stands alone with nft's own message. Every write is idempotent, so a half written twice is harmless.
 */
export async function writeInBatches(
  io: NftIo,
  operations: readonly NftOperation[],
  mode: WriteMode,
): Promise<Map<NftOperation, string>> {
  const errors = new Map<NftOperation, string>();
  if (operations.length === 0) return errors;
  const together = await io.batch(writeCommands(operations, mode));
  if (together === null) return errors;
  const sets = [...groupBySet(operations).values()];
  if (isGlobalNftError(together) || sets.length === 1) {
    return isGlobalNftError(together)
      ? failAll(errors, operations, together)
      : diagnoseSet(io, operations, mode, together, errors);
  }
  for (const ops of sets) {
    const alone = await io.batch(writeCommands(ops, mode));
    if (alone !== null) await diagnoseSet(io, ops, mode, alone, errors);
  }
  return errors;
}

/** Why a batch for one set failed: the set itself (every entry), or some of its elements (found by halving). */
async function diagnoseSet(
  io: NftIo,
  ops: readonly NftOperation[],
  mode: WriteMode,
  message: string,
  errors: Map<NftOperation, string>,
): Promise<Map<NftOperation, string>> {
  const set = ops[0]?.set;
  if (set === undefined || isGlobalNftError(message)) return failAll(errors, ops, message);
  const reading = await io.readSet(set);
  if ('error' in reading) return failAll(errors, ops, `set ${setLabel(set)}: ${reading.error}`);
  if (!reading.set.flags.includes('timeout')) {
    return failAll(errors, ops, `set ${setLabel(set)} has no "flags timeout": its elements would never expire`);
  }
  const held = new Set(reading.set.elements.map((element) => element.address));
  const rest: NftOperation[] = [];
  for (const op of ops) {
    const wanted = op.address.family === 'inet' ? 'ipv4_addr' : 'ipv6_addr';
    if (reading.set.type !== wanted) {
      errors.set(op, `set ${setLabel(set)} holds ${reading.set.type || 'other'} elements, not ${wanted}`);
    } else if (mode === 'apply' || held.has(op.address.canonical)) {
      rest.push(op);
    }
    // A removal of an element the set does not hold has nothing left to do.
  }
  // The batch just tried is this one: what it said is already known, and halving starts at once.
  await bisect(io, rest, mode, errors, rest.length === ops.length ? message : null);
  return errors;
}

/** Writes the operations, halving each failing part until every failing element has its own error. */
async function bisect(
  io: NftIo,
  ops: readonly NftOperation[],
  mode: WriteMode,
  errors: Map<NftOperation, string>,
  knownFailure: string | null = null,
): Promise<void> {
  if (ops.length === 0) return;
  const message = knownFailure ?? (await io.batch(writeCommands(ops, mode)));
  if (message === null) return;
  if (ops.length === 1 || isGlobalNftError(message)) {
    failAll(errors, ops, message);
    return;
  }
  const middle = Math.ceil(ops.length / 2);
  await bisect(io, ops.slice(0, middle), mode, errors);
  await bisect(io, ops.slice(middle), mode, errors);
}

function failAll(
  errors: Map<NftOperation, string>,
  ops: readonly NftOperation[],
  message: string,
): Map<NftOperation, string> {
  for (const op of ops) errors.set(op, message);
  return errors;
}

/** The operations by set (`family/table/name`), in their order. */
export function groupBySet(operations: readonly NftOperation[]): Map<string, NftOperation[]> {
  const groups = new Map<string, NftOperation[]>();
  for (const op of operations) {
    const key = allowedSetKey(op.set);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [op]);
    else group.push(op);
  }
  return groups;
}
