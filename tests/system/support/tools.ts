import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Null when every command exists (as /usr/bin/<name>), else what is missing and its Debian package. */
export function missingCommands(commands: Record<string, string>): string | null {
  const missing = Object.entries(commands).filter(([command]) => !existsSync(`/usr/bin/${command}`));
  if (missing.length === 0) return null;
  return missing.map(([command, pkg]) => `${command} (apt-get install ${pkg})`).join(', ');
}

/** Decodes the QR code in a PNG with zbar, the way a phone's camera would. */
export function decodeQrCode(pngPath: string): string {
  // zbar complains on stderr that there is no D-Bus in a container; that is noise, not failure.
  return execFileSync('zbarimg', ['--quiet', '--raw', pngPath], { stdio: ['ignore', 'pipe', 'ignore'] })
    .toString()
    .trim();
}

/** The TOTP code for a base32 secret, computed by oathtool, independently of Postern. */
export function oathtoolCode(secret: string, at: Date): string {
  return execFileSync('oathtool', ['--totp', '--base32', `--now=${at.toISOString()}`, secret])
    .toString()
    .trim();
}

export interface CurlAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** `curl -sS -i` with the given arguments, parsed: curl is the client here, not fetch. */
export function curl(url: string, args: string[] = []): CurlAnswer {
  const output = execFileSync('curl', ['-sS', '-i', '--max-time', '10', ...args, url]).toString();
  const split = output.indexOf('\r\n\r\n');
  const head = output.slice(0, split).split('\r\n');
  const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(head[0] ?? '')?.[1]);
  const headers = Object.fromEntries(
    head.slice(1).map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  return { status, headers, body: output.slice(split + 4) };
}
