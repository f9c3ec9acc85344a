import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type * as Esbuild from 'esbuild';
import type { Logger } from 'pino';
import type { LogoJob } from './logo-reencode.js';
import type { LogoWorkerAnswer, LogoWorkerRequest } from './logo-worker.js';

/*
 * Decoding and re-encoding a logo is pure JavaScript (pngjs, jpeg-js) and takes up to a second or
 * two for the largest allowed image (LOGO_MAX_PIXELS): on the event loop it would hold up every
 * other request for that long. So it runs in one worker thread, one image at a time; further
 * uploads wait in a short queue, and beyond it are refused (429) rather than piling up. A decode
 * that overruns its time limit, or a worker that runs out of memory or dies, refuses the upload and
 * the worker is replaced by a fresh one for the next. The worker is started on the first upload,
 * never keeps the process alive on its own, and is stopped when the app closes.
 */

/**
 * The longest one image may take, from being handed to the worker (starting it if need be). The
 * largest allowed takes a second or two; the limit leaves room for a busy machine, where the worker
 * (at a lower priority, see logo-worker.ts) gets only the CPU time that is left over.
 */
export const LOGO_DECODE_TIME_LIMIT_MS = 20_000;
/** Images that may wait while one is decoded; more are refused with 429. */
export const LOGO_QUEUE_LIMIT = 4;
/**
 * The worker's heap. The pixels live in Buffers outside it, bounded by the pixel budget
 * (LOGO_MAX_PIXELS: 16 MiB of RGBA at most); the heap holds the codecs and little else.
 */
const WORKER_RESOURCE_LIMITS: ResourceLimits = {
  maxOldGenerationSizeMb: 64,
  maxYoungGenerationSizeMb: 16,
  codeRangeSizeMb: 16,
  stackSizeMb: 4,
};

/**
 * What became of an image: the re-encoded file, or why not: `format` (not an image of the claimed
 * kind and size), `tooLarge` (over the time limit, or more memory than the worker has), `busy` (the
 * queue is full, or the app is closing).
 */
export type LogoCodecOutcome = { image: Uint8Array } | { refused: 'format' | 'tooLarge' | 'busy' };

interface Queued {
  job: LogoJob;
  timeLimitMs: number;
  resolve: (outcome: LogoCodecOutcome) => void;
}

interface Running extends Queued {
  id: number;
  worker: Worker;
  timer: NodeJS.Timeout;
}

/** The logo worker and its queue; one per app. */
export class LogoCodec {
  readonly #logger: Logger | undefined;
  readonly #timeLimitMs: number;
  readonly #queueLimit: number;
  readonly #queue: Queued[] = [];
  #worker: Worker | null = null;
  #running: Running | null = null;
  #nextId = 1;
  #workersStarted = 0;
  #closed = false;

  constructor(options: { logger?: Logger; timeLimitMs?: number; queueLimit?: number } = {}) {
    this.#logger = options.logger;
    this.#timeLimitMs = options.timeLimitMs ?? LOGO_DECODE_TIME_LIMIT_MS;
    this.#queueLimit = options.queueLimit ?? LOGO_QUEUE_LIMIT;
  }

  /**
   * Re-encodes `job`'s image in the worker, after the images before it. `timeLimitMs` may shorten
   * this image's time limit (the tests do).
   */
  reencode(job: LogoJob, options: { timeLimitMs?: number } = {}): Promise<LogoCodecOutcome> {
    const full = this.#running !== null && this.#queue.length >= this.#queueLimit;
    if (this.#closed || full) return Promise.resolve({ refused: 'busy' });
    return new Promise((resolve) => {
      this.#queue.push({ job, timeLimitMs: options.timeLimitMs ?? this.#timeLimitMs, resolve });
      this.#startNext();
    });
  }

  /** Images being decoded (0 or 1) and waiting, for tests and logs. */
  get pending(): { running: number; waiting: number } {
    return { running: this.#running === null ? 0 : 1, waiting: this.#queue.length };
  }

  /** How many workers this codec has started: one, plus one for each it had to replace. */
  get workersStarted(): number {
    return this.#workersStarted;
  }

  /** Stops the worker; images still waiting or being decoded are refused as `busy`. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const queued of this.#queue.splice(0)) queued.resolve({ refused: 'busy' });
    const worker = this.#worker;
    this.#worker = null;
    this.#finish({ refused: 'busy' });
    await worker?.terminate();
  }

  #startNext(): void {
    if (this.#running !== null || this.#closed) return;
    const queued = this.#queue.shift();
    if (queued === undefined) return;
    const worker = this.#worker ?? this.#startWorker();
    const id = this.#nextId++;
    const timer = setTimeout(() => {
      this.#logger?.warn({ limitMs: queued.timeLimitMs }, 'a logo took too long to decode; its worker was stopped');
      this.#replace(worker);
      this.#finish({ refused: 'tooLarge' });
    }, queued.timeLimitMs);
    this.#running = { ...queued, id, worker, timer };
    const request: LogoWorkerRequest = { id, job: queued.job };
    worker.postMessage(request);
  }

  /** Ends the image being decoded with `outcome` and starts the next one. */
  #finish(outcome: LogoCodecOutcome): void {
    const running = this.#running;
    if (running === null) return;
    clearTimeout(running.timer);
    this.#running = null;
    running.resolve(outcome);
    this.#startNext();
  }

  /** Stops `worker`; the next image starts a fresh one. */
  #replace(worker: Worker): void {
    if (this.#worker === worker) this.#worker = null;
    void worker.terminate();
  }

  #startWorker(): Worker {
    const worker = startLogoWorker();
    const current = () => this.#running?.worker === worker;
    worker.on('message', (answer: LogoWorkerAnswer) => {
      if (!current() || answer.id !== this.#running?.id) return;
      this.#finish('image' in answer.outcome ? { image: answer.outcome.image } : { refused: 'format' });
    });
    worker.on('error', (error) => {
      // ERR_WORKER_OUT_OF_MEMORY above all: the image needs more than the worker may have.
      this.#logger?.warn({ err: error }, 'the logo worker failed; it is replaced for the next logo');
      this.#replace(worker);
      if (current()) this.#finish({ refused: 'tooLarge' });
    });
    worker.on('exit', () => {
      if (this.#worker === worker) this.#worker = null;
      if (current()) this.#finish({ refused: 'tooLarge' });
    });
    // After the listeners, which would take the reference again: a waiting upload keeps the process
    // alive through its request and its timer, never the worker.
    worker.unref();
    this.#worker = worker;
    this.#workersStarted += 1;
    return worker;
  }
}

/** The worker beside this file: logo-worker.js in the build. */
function startLogoWorker(): Worker {
  // No flags of the server's own (--import tsx, --input-type, …): the worker needs none, and some
  // would change how it loads.
  const options = { name: 'postern-logo', resourceLimits: WORKER_RESOURCE_LIMITS, execArgv: [] };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./logo-worker.js', import.meta.url), options);
  return new Worker(workerFromSource(), { ...options, eval: true });
}

let sourceBundle: string | undefined;

/**
 * Running from the TypeScript sources (vitest, npm run dev), there is no logo-worker.js, Node 20's
 * workers load no .ts, and the loader the main thread runs under (tsx, vite) does not reach them.
 * So the worker and the codecs are bundled into one CommonJS script by esbuild, a development
 * dependency and so present wherever the sources run; once per process. The built server never
 * comes here.
 */
function workerFromSource(): string {
  if (sourceBundle === undefined) {
    const esbuild = createRequire(import.meta.url)('esbuild') as typeof Esbuild;
    const result = esbuild.buildSync({
      entryPoints: [fileURLToPath(new URL('./logo-worker.ts', import.meta.url))],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      write: false,
      logLevel: 'silent',
    });
    sourceBundle = result.outputFiles[0]?.text ?? '';
  }
  return sourceBundle;
}
