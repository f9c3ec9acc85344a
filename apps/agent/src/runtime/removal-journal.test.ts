import {
  appendFileSync,
  chmodSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentKnoc } from '@postern/protocol';
import { capturedLogger, testKnoc } from '../test-support/runtime-fixtures.js';
import type { HeldEntry } from './entry-store.js';
import {
  journalReserveFile,
  JOURNAL_EMPTY_AT_BYTES,
  readRemovalJournal,
  RemovalJournal,
  removalJournalFile,
  replayRemovalJournal,
  type JournalReading,
} from './removal-journal.js';
import { emptyStateFile, type StateFileContent } from './state-file.js';

const A = testKnoc('acl-a');
const B = testKnoc('acl-b', { acl: { V4SetName: 'other4' } });

let dir: string;
let stateFile: string;
let journalFile: string;
const opened: RemovalJournal[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'postern-agent-journal-'));
  stateFile = path.join(dir, 'var/lib/postern-agent/state.json');
  journalFile = removalJournalFile(stateFile);
});
afterEach(async () => {
  for (const journal of opened.splice(0)) await journal.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

/** A held entry as beginRemoval leaves it: marked removing. */
function removing(knoc: AgentKnoc, ip: string, generation: number, userName = 'alice'): HeldEntry {
  return {
    aclId: knoc.aclId,
    ip,
    userName,
    knoc,
    deadlineMs: 0,
    endsAt: undefined,
    raiseRefused: false,
    generation,
    removing: true,
    removeAttempts: 0,
  };
}

/** Reads the journal as a start does and opens it for appending (emptied once covered, whatever its size). */
async function openJournal(content: StateFileContent = emptyStateFile(), log = capturedLogger(), emptyAtBytes = 0) {
  const reading = await readRemovalJournal(journalFile, log.logger, 1_234);
  const replayed = replayRemovalJournal(content, reading);
  const journal = await RemovalJournal.open(stateFile, log.logger, reading, replayed.lastSeq, emptyAtBytes);
  opened.push(journal);
  return { journal, reading, replayed, log };
}

/** What a start reads back: the removals' keys with their sequence numbers and knocs. */
async function readBack(): Promise<JournalReading> {
  return readRemovalJournal(journalFile, capturedLogger().logger, 1_234);
}

function keysOf(reading: JournalReading): string[] {
  if (reading.corrupt) throw new Error('the journal is corrupt');
  return reading.removals.map((removal) => `${removal.seq} ${removal.aclId} ${removal.ip} g${removal.generation}`);
}

/** A state file content holding `ips` on knoc A. */
function stateWith(ips: string[], journalSeq?: number): StateFileContent {
  return {
    ...emptyStateFile(),
    generation: 4,
    stateGeneration: 4,
    knocs: [A],
    entries: ips.map((ip) => ({
      aclId: 'acl-a',
      ip,
      userName: 'alice',
      expiresAt: 1_900_000_000_000,
      generation: 3,
      knoc: 0,
      removing: false,
    })),
    ...(journalSeq === undefined ? {} : { journalSeq }),
  };
}

const flags = (content: StateFileContent) =>
  content.entries.map((entry) => `${entry.aclId} ${entry.ip} ${entry.removing ? 'removing' : 'held'}`);

describe('removal journal: append and read back', () => {
  it('appends one record per removal with increasing sequence numbers, and reads them back with their knocs', async () => {
    const { journal } = await openJournal();

    expect(await journal.append([removing(A, '10.0.0.1', 5), removing(B, '10.0.0.2', 5)])).toBe(true);
    expect(await journal.append([removing(A, '10.0.0.3', 6)])).toBe(true);

    const reading = await readBack();
    expect(keysOf(reading)).toEqual(['1 acl-a 10.0.0.1 g5', '2 acl-b 10.0.0.2 g5', '3 acl-a 10.0.0.3 g6']);
    expect(reading.corrupt === false && reading.removals.map((removal) => removal.knoc)).toEqual([A, B, A]);
    expect(journal.lastSeq).toBe(3);
  });

  it('writes each knoc configuration once per journal', async () => {
    const { journal } = await openJournal();

    await journal.append([removing(A, '10.0.0.1', 5)]);
    await journal.append([removing(A, '10.0.0.2', 5), removing(A, '10.0.0.3', 5)]);

    const types = readFileSync(journalFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types).toEqual(['journal', 'knoc', 'removing', 'removing', 'removing']);
  });

  it('keeps the journal and its reserve private: mode 600 in a directory created with mode 700', async () => {
    const { journal } = await openJournal();
    await journal.append([removing(A, '10.0.0.1', 5)]);

    expect(statSync(journalFile).mode & 0o777).toBe(0o600);
    expect(statSync(journalReserveFile(stateFile)).mode & 0o777).toBe(0o600);
    expect(statSync(journalReserveFile(stateFile)).size).toBe(1 << 20);
    expect(statSync(path.dirname(journalFile)).mode & 0o777).toBe(0o700);
  });

  it('makes a journal left with another mode private again when it opens it', async () => {
    const first = await openJournal();
    await first.journal.append([removing(A, '10.0.0.1', 5)]);
    await first.journal.close();
    chmodSync(journalFile, 0o644);

    await openJournal();

    expect(statSync(journalFile).mode & 0o777).toBe(0o600);
  });

  it('reports a failed append as not written', async () => {
    const { journal, log } = await openJournal();
    await journal.close();

    expect(await journal.append([removing(A, '10.0.0.1', 5)])).toBe(false);
    expect(log.find('cannot write removals ahead')).toHaveLength(1);
  });
});

describe('removal journal: replay over the state file', () => {
  it('marks the entries its records name as removing, and adds the addresses the state file does not hold', async () => {
    const { journal } = await openJournal();
    await journal.append([removing(A, '10.0.0.1', 7), removing(B, '10.0.0.9', 7)]);

    const { content, lastSeq } = replayRemovalJournal(stateWith(['10.0.0.1', '10.0.0.2']), await readBack());

    expect(flags(content)).toEqual(['acl-a 10.0.0.2 held', 'acl-a 10.0.0.1 removing', 'acl-b 10.0.0.9 removing']);
    expect(content.entries.find((entry) => entry.ip === '10.0.0.1')).toMatchObject({ generation: 7, knoc: 0 });
    expect(content.knocs[content.entries.find((entry) => entry.ip === '10.0.0.9')?.knoc ?? -1]).toEqual(B);
    expect(lastSeq).toBe(2);
  });

  it('skips the records the state file already includes', async () => {
    const { journal } = await openJournal();
    await journal.append([removing(A, '10.0.0.1', 7)]);
    await journal.append([removing(A, '10.0.0.2', 8)]);

    // Written after the first removal (which a re-grant then undid), before the second.
    const { content, lastSeq } = replayRemovalJournal(stateWith(['10.0.0.1', '10.0.0.2'], 1), await readBack());

    expect(flags(content)).toEqual(['acl-a 10.0.0.1 held', 'acl-a 10.0.0.2 removing']);
    expect(lastSeq).toBe(2);
  });

  it('continues the sequence numbers after a restart', async () => {
    const first = await openJournal();
    await first.journal.append([removing(A, '10.0.0.1', 7)]);
    await first.journal.close();

    const second = await openJournal(stateWith([]));
    await second.journal.append([removing(A, '10.0.0.2', 8)]);

    expect(second.replayed.lastSeq).toBe(1);
    expect(keysOf(await readBack())).toEqual(['1 acl-a 10.0.0.1 g7', '2 acl-a 10.0.0.2 g8']);
  });

  it('continues after the state file’s journalSeq when the journal was emptied', async () => {
    const { journal } = await openJournal(stateWith([], 41));
    await journal.append([removing(A, '10.0.0.2', 8)]);

    expect(keysOf(await readBack())).toEqual(['42 acl-a 10.0.0.2 g8']);
  });
});

describe('removal journal: emptied once a state file includes it', () => {
  it('empties the journal when a state file write includes every record, and starts afresh', async () => {
    const { journal } = await openJournal();
    await journal.append([removing(A, '10.0.0.1', 7), removing(A, '10.0.0.2', 7)]);

    await journal.covered(2);
    expect(readFileSync(journalFile, 'utf8')).toBe('');
    await journal.append([removing(A, '10.0.0.3', 8)]);

    expect(keysOf(await readBack())).toEqual(['3 acl-a 10.0.0.3 g8']);
    expect(readFileSync(journalFile, 'utf8')).toContain('"type":"knoc"');
  });

  it('keeps the journal while a record was written after the state file’s snapshot', async () => {
    const { journal } = await openJournal();
    await journal.append([removing(A, '10.0.0.1', 7)]);
    await journal.append([removing(A, '10.0.0.2', 8)]);

    await journal.covered(1);
    expect(keysOf(await readBack())).toEqual(['1 acl-a 10.0.0.1 g7', '2 acl-a 10.0.0.2 g8']);
    await journal.covered(2);

    expect(keysOf(await readBack())).toEqual([]);
  });

  it('keeps a journal smaller than its emptying size, whose covered records a start then skips', async () => {
    const { journal } = await openJournal(emptyStateFile(), capturedLogger(), JOURNAL_EMPTY_AT_BYTES);
    await journal.append([removing(A, '10.0.0.1', 7)]);

    await journal.covered(1);
    await journal.append([removing(A, '10.0.0.2', 8)]);

    expect(keysOf(await readBack())).toEqual(['1 acl-a 10.0.0.1 g7', '2 acl-a 10.0.0.2 g8']);
    const types = readFileSync(journalFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types).toEqual(['journal', 'knoc', 'removing', 'removing']);
    const { content } = replayRemovalJournal(stateWith(['10.0.0.1', '10.0.0.2'], 1), await readBack());
    expect(flags(content)).toEqual(['acl-a 10.0.0.1 held', 'acl-a 10.0.0.2 removing']);
  });

  it('empties a journal that grew to its emptying size once a state file includes it', async () => {
    const { journal } = await openJournal(emptyStateFile(), capturedLogger(), JOURNAL_EMPTY_AT_BYTES);
    const many = Array.from({ length: 1000 }, (_, index) => removing(A, `10.0.${index >> 8}.${index & 255}`, 7));
    await journal.append(many);
    expect(statSync(journalFile).size).toBeGreaterThan(JOURNAL_EMPTY_AT_BYTES);

    await journal.covered(1000);

    expect(readFileSync(journalFile, 'utf8')).toBe('');
  });

  it('empties a journal found at a start once the first state file includes it', async () => {
    const first = await openJournal();
    await first.journal.append([removing(A, '10.0.0.1', 7)]);
    await first.journal.close();

    const second = await openJournal();
    await second.journal.covered(second.journal.lastSeq);

    expect(readFileSync(journalFile, 'utf8')).toBe('');
  });
});

describe('removal journal: a crash while appending, a corrupt journal', () => {
  it('ignores a torn last line, logs it, and appends after the last whole line', async () => {
    const first = await openJournal();
    await first.journal.append([removing(A, '10.0.0.1', 7)]);
    await first.journal.close();
    appendFileSync(journalFile, '{"type":"removing","seq":2,"aclId":"acl-a","ip":"10.0');

    const second = await openJournal(stateWith(['10.0.0.1', '10.0.0.2']));
    await second.journal.append([removing(A, '10.0.0.3', 8)]);

    expect(flags(second.replayed.content)).toEqual(['acl-a 10.0.0.2 held', 'acl-a 10.0.0.1 removing']);
    expect(second.log.find('cut short')).toHaveLength(1);
    expect(keysOf(await readBack())).toEqual(['1 acl-a 10.0.0.1 g7', '2 acl-a 10.0.0.3 g8']);
  });

  it.for([
    { name: 'a line that is not JSON', tail: 'not json\n' },
    { name: 'a record of an unknown kind', tail: '{"type":"forgotten","seq":9}\n' },
    {
      name: 'a removal naming an undefined knoc',
      tail: '{"type":"removing","seq":9,"aclId":"acl-a","ip":"10.0.0.5","userName":"","generation":1,"knoc":4}\n',
    },
    {
      name: 'a sequence number that goes back',
      tail: '{"type":"removing","seq":1,"aclId":"acl-a","ip":"10.0.0.5","userName":"","generation":1,"knoc":0}\n',
    },
  ])('moves a corrupt journal ($name) aside, logs it, and removes every entry of the state file', async ({ tail }) => {
    const first = await openJournal();
    await first.journal.append([removing(A, '10.0.0.1', 7)]);
    await first.journal.close();
    appendFileSync(journalFile, tail);
    const text = readFileSync(journalFile, 'utf8');

    const second = await openJournal(stateWith(['10.0.0.1', '10.0.0.2', '10.0.0.3'], 0));

    expect(second.reading.corrupt).toBe(true);
    expect(flags(second.replayed.content)).toEqual([
      'acl-a 10.0.0.1 removing',
      'acl-a 10.0.0.2 removing',
      'acl-a 10.0.0.3 removing',
    ]);
    expect(readFileSync(`${journalFile}.corrupt-1234`, 'utf8')).toBe(text);
    expect(second.log.find('removal journal is corrupt')).toHaveLength(1);
    // A fresh journal takes its place.
    expect(readdirSync(path.dirname(journalFile)).sort()).toEqual([
      'state.json.journal',
      'state.json.journal-reserve',
      'state.json.journal.corrupt-1234',
    ]);
    await second.journal.append([removing(A, '10.0.0.4', 8)]);
    expect(keysOf(await readBack())).toEqual(['1 acl-a 10.0.0.4 g8']);
  });

  it('refuses a journal written in a newer format as corrupt', async () => {
    const { journal } = await openJournal();
    await journal.append([removing(A, '10.0.0.1', 7)]);
    await journal.close();
    writeFileSync(journalFile, readFileSync(journalFile, 'utf8').replace('"formatVersion":1', '"formatVersion":2'));

    expect((await readBack()).corrupt).toBe(true);
  });
});
