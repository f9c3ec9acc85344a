import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

/** A debug-level logger writing JSON lines into memory, and the lines it wrote. */
export function memoryLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, destination), lines };
}
