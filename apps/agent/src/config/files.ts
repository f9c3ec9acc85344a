import { readFileSync, statSync } from 'node:fs';
import { ConfigError } from './config-error.js';
import { errorCode } from './sources.js';

const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----';

/** Checks that `caFile` is a readable PEM file with at least one certificate, so TLS set-up cannot fail later. */
export function checkCaFile(file: string, label: string): void {
  let content: string;
  try {
    if (!statSync(file).isFile()) throw new ConfigError(label, `${file} is not a regular file`);
    content = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(label, `cannot read ${file} (${errorCode(error)})`);
  }
  if (!content.includes(PEM_CERTIFICATE)) {
    throw new ConfigError(label, `${file} holds no PEM certificate (no "${PEM_CERTIFICATE}" line)`);
  }
}

/**
 * Checks the scripts directory when scripts are enabled. Whoever can write there can run programs
 * with the agent's rights (often root), so a directory writable by group or others is refused.
 */
export function checkScriptsDirectory(dir: string, label: string): void {
  let mode: number;
  try {
    const stats = statSync(dir);
    if (!stats.isDirectory()) throw new ConfigError(label, `scripts are enabled but ${dir} is not a directory`);
    mode = stats.mode & 0o777;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(label, `scripts are enabled but ${dir} cannot be used (${errorCode(error)})`);
  }
  if ((mode & 0o022) !== 0) {
    throw new ConfigError(
      label,
      `${dir} is writable by group or others (mode ${mode.toString(8)}); run chmod go-w ${dir}`,
    );
  }
}

const PEM_PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;

/**
 * Checks knocproxy's TLS files: both or neither; the certificate holds a PEM certificate; the key
 * holds a PEM private key that nobody but the owner can read (whoever reads it can impersonate the proxy).
 */
export function checkTlsPair(
  files: { tlsCertFile: string | null; tlsKeyFile: string | null },
  labels: { cert: string; key: string },
): void {
  const { tlsCertFile, tlsKeyFile } = files;
  if (tlsCertFile === null && tlsKeyFile === null) return;
  if (tlsCertFile === null) throw new ConfigError(labels.key, 'needs knocproxy.tlsCertFile as well');
  if (tlsKeyFile === null) throw new ConfigError(labels.cert, 'needs knocproxy.tlsKeyFile as well');
  checkCaFile(tlsCertFile, labels.cert);
  let content: string;
  let mode: number;
  try {
    const stats = statSync(tlsKeyFile);
    if (!stats.isFile()) throw new ConfigError(labels.key, `${tlsKeyFile} is not a regular file`);
    mode = stats.mode & 0o777;
    content = readFileSync(tlsKeyFile, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(labels.key, `cannot read ${tlsKeyFile} (${errorCode(error)})`);
  }
  if ((mode & 0o077) !== 0) {
    throw new ConfigError(
      labels.key,
      `${tlsKeyFile} is readable by group or others (mode ${mode.toString(8)}); run chmod 600 ${tlsKeyFile}`,
    );
  }
  if (!PEM_PRIVATE_KEY.test(content)) throw new ConfigError(labels.key, `${tlsKeyFile} holds no PEM private key`);
}
