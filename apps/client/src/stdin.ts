import { usageError } from './errors.js';

/** Longest input taken as a key: far above any key, small enough that a wrong pipe cannot fill memory. */
const MAX_INPUT = 4096;

/**
 * One line from standard input: up to the first newline or the end of the input. On a terminal the
 * typing is not echoed (the key must not stay on the screen or in a recording of it).
 */
export async function readSecretLine(stdin: NodeJS.ReadStream = process.stdin, prompt = 'API key: '): Promise<string> {
  if (stdin.isTTY) return readFromTerminal(stdin, prompt);
  return new Promise((resolve, reject) => {
    let text = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onError);
      stdin.pause();
      if (error !== undefined) reject(error);
      else resolve(text.split(/\r?\n/, 1)[0] ?? '');
    };
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      if (text.includes('\n')) finish();
      else if (text.length > MAX_INPUT) finish(usageError('standard input is too long to be an API key'));
    };
    const onEnd = () => finish();
    const onError = (error: Error) => finish(usageError(`cannot read standard input: ${error.message}`));
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.on('error', onError);
    stdin.resume();
  });
}

function readFromTerminal(stdin: NodeJS.ReadStream, prompt: string): Promise<string> {
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  return new Promise((resolve, reject) => {
    let text = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (error !== undefined) reject(error);
      else resolve(text);
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of chunk.toString()) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') return finish(usageError('cancelled'));
        if (char === '\u007f' || char === '\b') text = text.slice(0, -1);
        else text += char;
      }
      if (text.length > MAX_INPUT) finish(usageError('the input is too long to be an API key'));
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}
