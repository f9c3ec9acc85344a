import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A built single-file program: the agent, or the machine client (postern-client). */
export interface AgentBundle {
  bytes: Buffer;
  /** Hex SHA-256 of `bytes`: the install script verifies the download against it. */
  sha256: string;
}

/** What the server hands to hosts installing a program (the agent, or the client beside it). */
export interface AgentDistribution {
  /** The install script with its placeholders, or null when the file is missing. */
  installTemplate(): string | null;
  /** The program's bundle, or null when it has not been built. */
  bundle(): AgentBundle | null;
}

/** Where the files are; the defaults are the agent workspace beside this server. */
export interface AgentDistributionPaths {
  bundleFile: string;
  installTemplateFile: string;
}

/** apps/agent beside this package, whether we run from src (tests) or dist (production). */
const AGENT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../agent');
/** apps/client, the machine client installed beside agents. */
const CLIENT_DIR = path.resolve(AGENT_DIR, '../client');

export const DEFAULT_AGENT_DISTRIBUTION_PATHS: AgentDistributionPaths = {
  // Made by apps/agent/scripts/bundle.mjs during `npm run build`.
  bundleFile: path.join(AGENT_DIR, 'dist', 'postern-agent.mjs'),
  installTemplateFile: path.join(AGENT_DIR, 'install', 'install.sh'),
};

export const DEFAULT_CLIENT_DISTRIBUTION_PATHS: AgentDistributionPaths = {
  // Made by apps/client/scripts/bundle.mjs during `npm run build`.
  bundleFile: path.join(CLIENT_DIR, 'dist', 'postern-client.mjs'),
  installTemplateFile: path.join(CLIENT_DIR, 'install', 'install.sh'),
};

/**
 * Reads a program's bundle (the agent's by default) and its install script template when first asked and again whenever a file's size or
 * modification time changes, so a rebuild is served (with its new checksum) without a restart.
 */
export function loadAgentDistribution(
  paths: AgentDistributionPaths = DEFAULT_AGENT_DISTRIBUTION_PATHS,
): AgentDistribution {
  const bundle = cachedFile(paths.bundleFile, (bytes) => ({
    bytes,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  }));
  const template = cachedFile(paths.installTemplateFile, (bytes) => bytes.toString('utf8'));
  return { bundle, installTemplate: template };
}

function cachedFile<T>(file: string, parse: (bytes: Buffer) => T): () => T | null {
  let cached: { key: string; value: T } | null = null;
  return () => {
    let key: string;
    try {
      const stats = statSync(file);
      if (!stats.isFile()) return null;
      key = `${stats.mtimeMs}:${stats.size}`;
    } catch {
      cached = null;
      return null;
    }
    if (cached?.key !== key) {
      try {
        cached = { key, value: parse(readFileSync(file)) };
      } catch {
        // Removed between stat and read (a rebuild in progress): not there right now.
        return null;
      }
    }
    return cached.value;
  };
}
