import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built single-file agent. */
export interface AgentBundle {
  bytes: Buffer;
  /** Hex SHA-256 of `bytes`: the install script verifies the download against it. */
  sha256: string;
}

/** What the server hands to hosts installing an agent. */
export interface AgentDistribution {
  /** The install script with its placeholders, or null when the file is missing. */
  installTemplate(): string | null;
  /** The agent bundle, or null when it has not been built. */
  bundle(): AgentBundle | null;
}

/** Where the files are; the defaults are the agent workspace beside this server. */
export interface AgentDistributionPaths {
  bundleFile: string;
  installTemplateFile: string;
}

/** apps/agent beside this package, whether we run from src (tests) or dist (production). */
const AGENT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../agent');

export const DEFAULT_AGENT_DISTRIBUTION_PATHS: AgentDistributionPaths = {
  // Made by apps/agent/scripts/bundle.mjs during `npm run build`.
  bundleFile: path.join(AGENT_DIR, 'dist', 'postern-agent.mjs'),
  installTemplateFile: path.join(AGENT_DIR, 'install', 'install.sh'),
};

/**
 * Reads the bundle and the script template when first asked and again whenever a file's size or
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
