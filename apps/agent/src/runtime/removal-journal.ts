import { mkdir, open, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { AgentKnoc, EntryKey } from '@postern/protocol';
import { errorMessage } from './driver-calls.js';
import type { HeldEntry } from './entry-store.js';
import type { StateFileContent, StoredEntry } from './state-file.js';

/**
 * The removal journal: the write-ahead of a removal without rewriting the whole state file. Before
 * a removal's first driver call, one line per entry is appended to `<state file>.journal` (kept
 * open) and fdatasynced; the state file itself stays coalesced (state-file-writer.ts). Each record
 * has a sequence number, and every state file says up to which one it includes (`journalSeq`): a
 * start reads the state file, then replays the journal's later records over it, so each entry a
 * removal was written ahead for is `removing` again and is removed, never put back. Once a state
 * file that includes every record is on the disk and the journal has grown to
 * {@link JOURNAL_EMPTY_AT_BYTES}, the journal is emptied.
 *
 * Lines are JSON: a header, then knoc configurations (each written once per journal, referred to
 * by index) and removals. Like the state file it holds knoc configurations with their secrets
 * (still sealed where the server sealed them), so it has mode 600 in the state file's directory.
 */
export const JOURNAL_FORMAT_VERSION = 1;

/**
 * Released when an append finds the disk full, so that the removal can still be written ahead;
 * made again once a state file write succeeds (there is room again). 1 MiB holds thousands of records.
 */
const RESERVE_BYTES = 1 << 20;

/**
 * The journal is emptied once a state file includes all of it and it has grown to this size. Below
 * it, records the state file includes stay (a start skips them by their sequence number): the next
 * revoke then appends one short line within a block the file already has, and its knoc line is
 * there already, instead of allocating the file anew each time.
 */
export const JOURNAL_EMPTY_AT_BYTES = 64 * 1024;

const JournalHeader = z.object({ type: z.literal('journal'), formatVersion: z.literal(JOURNAL_FORMAT_VERSION) });
const JournalKnoc = z.object({ type: z.literal('knoc'), index: z.number().int().min(0), knoc: AgentKnoc });
const JournalRemovalRecord = EntryKey.extend({
  type: z.literal('removing'),
  /** Increases by one per record, across journals; the state file's `journalSeq` names the last one it includes. */
  seq: z.number().int().min(1),
  userName: z.string(),
  /** The tombstone's generation once removed. */
  generation: z.number().int().min(0),
  /** Index of a knoc line above: the configuration the removal was made with. */
  knoc: z.number().int().min(0),
});
const JournalLine = z.discriminatedUnion('type', [JournalHeader, JournalKnoc, JournalRemovalRecord]);

/** One removal written ahead, as read back. */
export interface JournalRemoval {
  seq: number;
  aclId: string;
  ip: string;
  userName: string;
  generation: number;
  knoc: AgentKnoc;
}

/** What a start found in the journal. */
export type JournalReading =
  | {
      corrupt: false;
      removals: JournalRemoval[];
      /** Bytes of whole lines: what follows (a torn last line) is cut off before appending. */
      length: number;
      /** Knoc lines in the file: the next one gets this index. */
      knocCount: number;
    }
  | { corrupt: true };

/** The journal beside `stateFile`. */
export function removalJournalFile(stateFile: string): string {
  return `${stateFile}.journal`;
}

/** The journal's reserve of disk space beside `stateFile`. */
export function journalReserveFile(stateFile: string): string {
  return `${stateFile}.journal-reserve`;
}

/**
 * Reads the journal. A missing file is an empty journal. A last line without its newline is an
 * append a crash cut short: its fdatasync never returned, so no driver was called for it, and it
 * is ignored. Anything else it cannot understand makes it corrupt: it is moved aside as
 * `<file>.corrupt-<epoch ms>` and logged, and {@link replayRemovalJournal} then removes every entry
 * (see there why). An unreadable file (permissions) is an error, as for the state file.
 */
export async function readRemovalJournal(file: string, logger: Logger, nowWallMs: number): Promise<JournalReading> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { corrupt: false, removals: [], length: 0, knocCount: 0 };
    throw error;
  }
  const length = bytes.lastIndexOf(0x0a) + 1;
  if (length < bytes.length) {
    logger.warn(
      { journal: file, ignoredBytes: bytes.length - length },
      'the removal journal ends in a record cut short (a crash while appending); ignored it',
    );
  }
  const parsed = parseJournal(bytes.subarray(0, length).toString('utf8'));
  if (typeof parsed !== 'string') return { corrupt: false, ...parsed, length };
  const aside = `${file}.corrupt-${nowWallMs}`;
  await rename(file, aside);
  logger.error(
    { journal: file, movedTo: aside, problem: parsed },
    'the removal journal is corrupt; moved it aside; every entry of the state file is removed, and the server’s next state puts back what is still granted',
  );
  return { corrupt: true };
}

/** The journal's records, or what is wrong with it. */
function parseJournal(text: string): { removals: JournalRemoval[]; knocCount: number } | string {
  const lines = text.split('\n').slice(0, -1);
  const knocs: AgentKnoc[] = [];
  const removals: JournalRemoval[] = [];
  for (const [index, line] of lines.entries()) {
    const where = `line ${index + 1}`;
    let record: z.infer<typeof JournalLine>;
    try {
      const parsed = JournalLine.safeParse(JSON.parse(line));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return `${where}: ${issue?.path.join('.') || 'record'}: ${issue?.message ?? 'invalid'}`;
      }
      record = parsed.data;
    } catch (error) {
      return `${where}: ${errorMessage(error)}`;
    }
    if ((index === 0) !== (record.type === 'journal'))
      return `${where}: the header must be the first line, and only it`;
    if (record.type === 'knoc') {
      if (record.index !== knocs.length) return `${where}: knoc ${record.index} out of order`;
      knocs.push(record.knoc);
    } else if (record.type === 'removing') {
      const knoc = knocs[record.knoc];
      if (knoc === undefined) return `${where}: knoc ${record.knoc} is not defined above`;
      const previous = removals.at(-1)?.seq ?? 0;
      if (record.seq <= previous) return `${where}: sequence ${record.seq} after ${previous}`;
      const { seq, aclId, ip, userName, generation } = record;
      removals.push({ seq, aclId, ip, userName, generation, knoc });
    }
  }
  return { removals, knocCount: knocs.length };
}

/**
 * The state file's content with the journal's records after its `journalSeq` replayed over it: each
 * such entry is `removing`, under the knoc configuration its removal was made with, so the restore
 * removes it and never puts it back. Returns the last sequence number in use.
 *
 * A corrupt journal makes every entry `removing`. A journal that cannot be read may have held the
 * removal of any entry, and its device call may not have happened (a crash right after the
 * append), so the only restore that keeps each such removal is one that removes every entry the
 * state file holds. Merely not re-adding would leave such an entry on its device (no driver call
 * ever took it off) until its timeout or the server's next state: exactly the revoked access the
 * write-ahead exists to end. Removing too much costs less: the server's next state puts back what
 * is still granted, within moments of the connection.
 */
export function replayRemovalJournal(
  content: StateFileContent,
  reading: JournalReading,
): { content: StateFileContent; lastSeq: number } {
  const covered = content.journalSeq ?? 0;
  if (reading.corrupt) {
    return {
      content: { ...content, entries: content.entries.map((entry) => ({ ...entry, removing: true })) },
      lastSeq: covered,
    };
  }
  const knocs = [...content.knocs];
  const knocIndex = new Map(knocs.map((knoc, index) => [JSON.stringify(knoc), index]));
  const entries = new Map(content.entries.map((entry) => [`${entry.aclId}\u0000${entry.ip}`, entry]));
  let lastSeq = covered;
  for (const removal of reading.removals) {
    lastSeq = Math.max(lastSeq, removal.seq);
    if (removal.seq <= covered) continue;
    const text = JSON.stringify(removal.knoc);
    let knoc = knocIndex.get(text);
    if (knoc === undefined) {
      knoc = knocs.push(removal.knoc) - 1;
      knocIndex.set(text, knoc);
    }
    const key = `${removal.aclId}\u0000${removal.ip}`;
    const stored = entries.get(key);
    const entry: StoredEntry = {
      aclId: removal.aclId,
      ip: removal.ip,
      userName: removal.userName,
      expiresAt: stored?.expiresAt ?? 0,
      ...(stored?.endsAt === undefined ? {} : { endsAt: stored.endsAt }),
      generation: removal.generation,
      knoc,
      removing: true,
    };
    entries.delete(key);
    entries.set(key, entry);
  }
  return { content: { ...content, knocs, entries: [...entries.values()] }, lastSeq };
}

/** One record as taken when the removal began (the held entry may change while it is written). */
interface PendingRecord {
  seq: number;
  aclId: string;
  ip: string;
  userName: string;
  generation: number;
  knoc: AgentKnoc;
}

/**
 * The open journal. Appends, the emptying after a covering state file write, and the reserve's
 * upkeep run one at a time, in the order they were asked for.
 */
export class RemovalJournal {
  readonly #file: string;
  readonly #reserve: string;
  readonly #logger: Logger;
  readonly #handle: FileHandle;
  /** Bytes of whole records in the file; the next record is written there. */
  #length: number;
  /** Knoc configurations written to this journal since it was last emptied, and the next index. */
  #knocs = new Map<AgentKnoc, number>();
  #knocCount: number;
  /** The last sequence number handed out (a snapshot of the state file includes every record up to it). */
  #lastSeq: number;
  /** The highest sequence number whose record is in the file. */
  #writtenSeq = 0;
  /** A failed append may have left bytes after {@link #length} that could not be cut off yet. */
  #tailToCut = false;
  #reserveHeld = false;
  /** A failure to make the reserve was logged; logged again only after it was made. */
  #reserveWarned = false;
  readonly #emptyAtBytes: number;
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(
    stateFile: string,
    logger: Logger,
    handle: FileHandle,
    start: { length: number; knocCount: number; lastSeq: number; emptyAtBytes: number },
  ) {
    this.#emptyAtBytes = start.emptyAtBytes;
    this.#file = removalJournalFile(stateFile);
    this.#reserve = journalReserveFile(stateFile);
    this.#logger = logger;
    this.#handle = handle;
    this.#length = start.length;
    this.#knocCount = start.knocCount;
    this.#lastSeq = start.lastSeq;
    this.#writtenSeq = start.length > 0 ? start.lastSeq : 0;
  }

  /**
   * Opens (or creates, mode 600, in a directory made with mode 700) the journal of `stateFile` as
   * {@link readRemovalJournal} found it: a torn last line is cut off, the records before it stay
   * until a state file that includes them is written. `lastSeq` is the last sequence number in use.
   * Also makes the disk space reserve when it is missing (without it when there is no room).
   * `emptyAtBytes`: see {@link JOURNAL_EMPTY_AT_BYTES} (tests empty it sooner).
   */
  static async open(
    stateFile: string,
    logger: Logger,
    reading: JournalReading,
    lastSeq: number,
    emptyAtBytes = JOURNAL_EMPTY_AT_BYTES,
  ): Promise<RemovalJournal> {
    const file = removalJournalFile(stateFile);
    const dir = path.dirname(file);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const start = reading.corrupt ? { length: 0, knocCount: 0 } : reading;
    let handle: FileHandle;
    try {
      handle = await open(file, 'r+');
      // A file left by someone else may have another mode; the records are as private as the state file.
      await handle.chmod(0o600);
      await handle.truncate(start.length);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      handle = await open(file, 'wx', 0o600);
      // The new name must survive a power cut before any record in the file is relied on.
      await syncDirectory(dir);
    }
    const journal = new RemovalJournal(stateFile, logger, handle, { ...start, lastSeq, emptyAtBytes });
    await journal.#makeReserve();
    return journal;
  }

  /** The last sequence number handed out: a state file snapshot taken now includes every record up to it. */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /**
   * Writes the removal of `entries` ahead: resolves true once their records are on the disk
   * (appended and fdatasynced), false when they could not be written (logged). Their sequence
   * numbers are taken at once, so a state file snapshot taken after this call counts them as
   * included (it holds the entries as `removing`, or what changed them since).
   */
  append(entries: readonly HeldEntry[]): Promise<boolean> {
    if (entries.length === 0) return Promise.resolve(true);
    const records = entries.map((entry) => ({
      seq: ++this.#lastSeq,
      aclId: entry.aclId,
      ip: entry.ip,
      userName: entry.userName,
      generation: entry.generation,
      knoc: entry.knoc,
    }));
    return this.#run(() => this.#append(records));
  }

  /**
   * A state file that includes every record up to `seq` reached the disk: when that is all of them
   * and the journal has grown to {@link JOURNAL_EMPTY_AT_BYTES}, it is emptied (records written
   * meanwhile wait for the next write). Also makes the reserve again after the disk was full, since
   * that write found room. Never rejects.
   */
  covered(seq: number): Promise<void> {
    return this.#run(async () => {
      if (this.#length > 0 && this.#length >= this.#emptyAtBytes && this.#writtenSeq <= seq) {
        try {
          // No sync needed: records that come back after a power cut are all included in the state file.
          await this.#handle.truncate(0);
          this.#length = 0;
          this.#tailToCut = false;
          this.#knocs.clear();
          this.#knocCount = 0;
        } catch (error) {
          this.#logger.warn({ journal: this.#file, error: errorMessage(error) }, 'cannot empty the removal journal');
        }
      }
      if (!this.#reserveHeld) await this.#makeReserve();
    });
  }

  /** Waits for pending work and closes the file. */
  async close(): Promise<void> {
    await this.#queue;
    await this.#handle.close();
  }

  #run<T>(job: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(job);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  async #append(records: readonly PendingRecord[]): Promise<boolean> {
    const lines: string[] = [];
    if (this.#length === 0) lines.push(JSON.stringify({ type: 'journal', formatVersion: JOURNAL_FORMAT_VERSION }));
    const defined = new Map<AgentKnoc, number>();
    for (const record of records) {
      let index = this.#knocs.get(record.knoc) ?? defined.get(record.knoc);
      if (index === undefined) {
        index = this.#knocCount + defined.size;
        defined.set(record.knoc, index);
        lines.push(JSON.stringify({ type: 'knoc', index, knoc: record.knoc }));
      }
      const { seq, aclId, ip, userName, generation } = record;
      lines.push(JSON.stringify({ type: 'removing', seq, aclId, ip, userName, generation, knoc: index }));
    }
    const bytes = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
    let error = await this.#writeAt(bytes);
    if ((error as NodeJS.ErrnoException | null)?.code === 'ENOSPC' && this.#reserveHeld) {
      await this.#releaseReserve();
      error = await this.#writeAt(bytes);
    }
    if (error !== null) {
      this.#logger.error(
        { journal: this.#file, error: errorMessage(error), entries: records.length },
        'cannot write removals ahead to the removal journal',
      );
      return false;
    }
    this.#length += bytes.length;
    this.#writtenSeq = records.at(-1)?.seq ?? this.#writtenSeq;
    for (const [knoc, index] of defined) this.#knocs.set(knoc, index);
    this.#knocCount += defined.size;
    return true;
  }

  /**
   * Writes `bytes` at the end of the whole records and fdatasyncs; returns the error, or null. A
   * failed write is cut off again (that needs no room), so the next append does not follow a torn
   * line; if even that fails, the next append tries first.
   */
  async #writeAt(bytes: Buffer): Promise<unknown> {
    try {
      if (this.#tailToCut) {
        await this.#handle.truncate(this.#length);
        this.#tailToCut = false;
      }
      let written = 0;
      while (written < bytes.length) {
        const { bytesWritten } = await this.#handle.write(
          bytes,
          written,
          bytes.length - written,
          this.#length + written,
        );
        written += bytesWritten;
      }
      await this.#handle.datasync();
      return null;
    } catch (error) {
      this.#tailToCut = true;
      try {
        await this.#handle.truncate(this.#length);
        this.#tailToCut = false;
      } catch {
        // Tried again before the next append.
      }
      return error;
    }
  }

  /** Makes the reserve when missing; without room it stays missing (logged), and is tried again later. */
  async #makeReserve(): Promise<void> {
    try {
      const existing = await stat(this.#reserve).catch(() => null);
      if (existing?.size === RESERVE_BYTES) {
        this.#reserveHeld = true;
        this.#reserveWarned = false;
        return;
      }
      await rm(this.#reserve, { force: true });
      const handle = await open(this.#reserve, 'wx', 0o600);
      try {
        await handle.write(Buffer.alloc(RESERVE_BYTES));
        await handle.sync();
      } finally {
        await handle.close();
      }
      this.#reserveHeld = true;
      this.#reserveWarned = false;
    } catch (error) {
      await rm(this.#reserve, { force: true }).catch(() => undefined);
      if (this.#reserveWarned) return;
      this.#reserveWarned = true;
      this.#logger.warn(
        { reserve: this.#reserve, error: errorMessage(error) },
        'cannot make the removal journal’s disk space reserve; will try again after each state file write',
      );
    }
  }

  /** The disk is full: gives the reserve's room to the journal. */
  async #releaseReserve(): Promise<void> {
    this.#reserveHeld = false;
    try {
      await rm(this.#reserve, { force: true });
      // Some file systems (ext4) hand freed blocks out only once the deletion is committed.
      await syncDirectory(path.dirname(this.#reserve));
      this.#logger.error(
        { journal: this.#file, reserve: this.#reserve },
        'the disk is full: released the removal journal’s reserve to write removals ahead',
      );
    } catch (error) {
      this.#logger.error(
        { reserve: this.#reserve, error: errorMessage(error) },
        'cannot release the removal journal’s reserve',
      );
    }
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
