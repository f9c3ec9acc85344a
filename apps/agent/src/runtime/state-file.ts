import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import { AgentKnoc, EntryKey } from '@postern/protocol';
import { errorMessage } from './driver-calls.js';

/**
 * The agent's state file: what it put on the devices, so that after a restart (a reboot that emptied
 * the kernel sets, or a crash) it can put back exactly the unexpired entries with their remaining
 * time and remove the rest, before and without a server connection.
 *
 * It holds the knoc configurations the entries were applied with, secrets included (a vendor API
 * key, a script's sensitive variables): without them the agent could not remove an entry from a
 * device while the server is unreachable, and fail-closed expiry matters more than keeping that
 * copy off the disk. So the file is written with mode 600 inside a directory of mode 700, owned by
 * the agent's user (normally root), like the token file. The agent's token is never written here.
 */
export const STATE_FORMAT_VERSION = 1;

const Generation = z.number().int().min(0);

const StoredEntry = EntryKey.extend({
  userName: z.string(),
  /** Wall-clock epoch ms: the monotonic clock does not survive a restart. For a removal in retry, the next attempt. */
  expiresAt: z.number(),
  generation: Generation,
  /** Index into `knocs`: the configuration the entry was applied with. */
  knoc: z.number().int().min(0),
  /**
   * The entry must go: its removal was received (from the server, or its own expiry) and written ahead
   * before the device was touched (to the removal journal, replayed over this file on a start), and
   * has not been confirmed. A start removes it, never re-adds it.
   */
  removing: z.boolean().default(false),
  /** When the server says the entry ends, in the server's time (epoch ms); absent from older agents and servers. */
  endsAt: z.number().int().min(0).optional(),
});
export type StoredEntry = z.infer<typeof StoredEntry>;

const StoredTombstone = EntryKey.extend({ generation: Generation });

export const StateFileContent = z
  .object({
    formatVersion: z.literal(STATE_FORMAT_VERSION),
    /** The highest generation applied. */
    generation: Generation,
    /** The generation of the newest whole `state` applied. */
    stateGeneration: Generation,
    /** Every knoc configuration an entry below refers to; current knocs without entries are not kept. */
    knocs: z.array(AgentKnoc),
    entries: z.array(StoredEntry),
    tombstones: z.array(StoredTombstone).default([]),
    /**
     * The last removal journal record this file includes (removal-journal.ts): a start replays only
     * the later ones over it. Absent from older agents: 0.
     */
    journalSeq: z.number().int().min(0).optional(),
  })
  .refine((content) => content.entries.every((entry) => entry.knoc < content.knocs.length), {
    message: 'an entry refers to a knoc that is not in the file',
  });
export type StateFileContent = z.infer<typeof StateFileContent>;

/** The content of a state file that does not exist yet. */
export function emptyStateFile(): StateFileContent {
  return {
    formatVersion: STATE_FORMAT_VERSION,
    generation: 0,
    stateGeneration: 0,
    knocs: [],
    entries: [],
    tombstones: [],
  };
}

/**
 * Reads the state file. A missing file is an empty state. A file that cannot be understood (cut
 * short, edited by hand, written by a newer agent) is moved aside as `<file>.corrupt-<epoch ms>`
 * for the operator to inspect, and the agent starts empty: the server's state restores the entries
 * and the devices' own timeouts cover the gap. An unreadable file (permissions) is an error,
 * because starting empty would forget entries that only this file knows.
 */
export async function loadStateFile(file: string, logger: Logger, nowWallMs: number): Promise<StateFileContent> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyStateFile();
    throw error;
  }
  let problem: string;
  try {
    const parsed = StateFileContent.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    problem = `${issue?.path.join('.') || 'file'}: ${issue?.message ?? 'invalid'}`;
  } catch (error) {
    problem = errorMessage(error);
  }
  const aside = `${file}.corrupt-${nowWallMs}`;
  await rename(file, aside);
  logger.error(
    { stateFile: file, movedTo: aside, problem },
    'the state file is corrupt; moved it aside and starting empty',
  );
  return emptyStateFile();
}

/**
 * Replaces the state file atomically: a temporary file in the same directory is written and
 * fsynced, then renamed over the old one, and the directory is fsynced so the rename survives a
 * power cut. A reader (or a crash) sees the old file or the new one, never half of one.
 */
export async function writeStateFile(file: string, content: StateFileContent): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temporary = `${file}.tmp`;
  // A leftover from a crash may have another mode; the mode below applies only to a new file.
  await rm(temporary, { force: true });
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(JSON.stringify(content));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
  const dirHandle = await open(dir, 'r');
  try {
    await dirHandle.sync();
  } finally {
    await dirHandle.close();
  }
}
