import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { reencodeLogo, type LogoJob, type LogoJobOutcome } from './logo-reencode.js';

/*
 * The logo worker's entry point (started by logo-codec.ts): re-encodes one image per message, in
 * the order they come. It holds no state between messages.
 */

/** A job as the codec posts it; the answer repeats its `id`. */
export interface LogoWorkerRequest {
  id: number;
  job: LogoJob;
}

/** The worker's answer to one request. */
export interface LogoWorkerAnswer {
  id: number;
  outcome: LogoJobOutcome;
}

// Linux keeps a nice value per thread: at nice 10, a decode takes mostly CPU time that the
// server's event loop (and the rest of the machine) leaves over, so even on two busy cores requests
// do not queue behind it. Elsewhere the nice value is the whole process's, which must stay as it is.
if (process.platform === 'linux') setPriority(10);

parentPort?.on('message', (request: LogoWorkerRequest) => {
  const answer: LogoWorkerAnswer = { id: request.id, outcome: reencodeLogo(request.job) };
  // Copied, not transferred: a small Buffer's memory is Node's shared pool, which must stay here.
  parentPort?.postMessage(answer);
});
