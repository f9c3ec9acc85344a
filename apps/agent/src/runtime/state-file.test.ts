import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '@postern/test-support';
import { capturedLogger, testKnoc } from '../test-support/runtime-fixtures.js';
import { emptyStateFile, loadStateFile, writeStateFile, type StateFileContent } from './state-file.js';
import { StateFileWriter } from './state-file-writer.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'postern-agent-state-'));
  file = path.join(dir, 'var/lib/postern-agent/state.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const CONTENT: StateFileContent = {
  ...emptyStateFile(),
  generation: 7,
  stateGeneration: 6,
  knocs: [testKnoc('acl-a')],
  entries: [
    {
      aclId: 'acl-a',
      ip: '10.0.0.1',
      userName: 'alice',
      expiresAt: 1_900_000_000_000,
      generation: 7,
      knoc: 0,
      removing: false,
    },
  ],
  tombstones: [{ aclId: 'acl-a', ip: '10.0.0.2', generation: 5 }],
};

describe('state file', () => {
  it('is written with mode 600 in a directory created with mode 700, leaving no temporary file', async () => {
    await writeStateFile(file, CONTENT);

    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(readdirSync(path.dirname(file))).toEqual(['state.json']);
  });

  it('reads back what was written', async () => {
    await writeStateFile(file, CONTENT);

    expect(await loadStateFile(file, capturedLogger().logger, Date.now())).toEqual(CONTENT);
  });

  it('is empty when the file does not exist', async () => {
    expect(await loadStateFile(file, capturedLogger().logger, Date.now())).toEqual(emptyStateFile());
  });

  it.for([
    { name: 'cut-short JSON', text: '{"formatVersion":1,"generation":' },
    { name: 'a newer format', text: JSON.stringify({ ...CONTENT, formatVersion: 2 }) },
    { name: 'an entry pointing at a missing knoc', text: JSON.stringify({ ...CONTENT, knocs: [] }) },
  ])('moves a corrupt file ($name) aside, logs it and starts empty', async ({ text }) => {
    await writeStateFile(file, CONTENT);
    writeFileSync(file, text);
    const log = capturedLogger();

    const loaded = await loadStateFile(file, log.logger, 1_234);

    expect(loaded).toEqual(emptyStateFile());
    expect(readdirSync(path.dirname(file))).toEqual(['state.json.corrupt-1234']);
    expect(readFileSync(`${file}.corrupt-1234`, 'utf8')).toBe(text);
    expect(log.find('state file is corrupt')).toHaveLength(1);
  });
});

describe('StateFileWriter', () => {
  it('coalesces a burst of changes into one write of the latest content', async () => {
    let snapshots = 0;
    let generation = 0;
    const writer = new StateFileWriter(
      file,
      () => {
        snapshots++;
        return { ...emptyStateFile(), generation };
      },
      capturedLogger().logger,
    );

    for (generation = 1; generation <= 500; generation++) writer.markDirty();
    generation = 500;
    await waitFor(() => snapshots > 0, 'the coalesced write');
    await writer.stop();

    expect(snapshots).toBe(1);
    expect((JSON.parse(readFileSync(file, 'utf8')) as StateFileContent).generation).toBe(500);
  });

  it('writes pending changes at once on flush', async () => {
    const writer = new StateFileWriter(file, () => CONTENT, capturedLogger().logger);
    writer.markDirty();

    await writer.flush();

    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(CONTENT);
    await writer.stop();
  });
});
