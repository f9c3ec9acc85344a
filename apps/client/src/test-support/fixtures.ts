import path from 'node:path';
import { onTestFinished } from 'vitest';
import { PosternApi } from '../api-client.js';
import type { ApiFactory } from '../session.js';
import { FakePosternServer, type FakeServerOptions } from './fake-postern-server.js';
import { TestClock } from './test-clock.js';
import { tempDir } from './temp-dir.js';

/** The key the fake signs in as `backup-bot`. */
export const KEY = 'pst_Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWpr';

/** A fake server sharing a test clock, a session file path, and an API factory pointed at it. */
export async function givenServer(
  mode: 'auto' | 'manual',
  options: Omit<FakeServerOptions, 'now'> = {},
): Promise<{ server: FakePosternServer; clock: TestClock; apiFor: ApiFactory; sessionFile: string }> {
  const clock = new TestClock(mode);
  const server = await FakePosternServer.start({
    now: () => clock.now(),
    keys: { [KEY]: { userName: 'backup-bot' } },
    ...options,
  });
  onTestFinished(() => server.close());
  const apiFor: ApiFactory = (url) => new PosternApi({ server: url, requestTimeoutMs: 5_000 });
  return { server, clock, apiFor, sessionFile: path.join(tempDir(), 'session.json') };
}

/** The key reader of a client whose key file holds KEY. */
export const readTestKey = () => ({ key: KEY, source: 'test' });
