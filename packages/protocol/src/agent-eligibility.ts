import type { AgentCapabilities } from './agents.js';
import { minimumAgentVersion, type BackendType } from './backends.js';
import { ErrorCodes, type ErrorCode } from './errors.js';

/*
 * Whether an agent can drive a backend type: the one rule the server enforces on every backend and
 * knoc write and the console uses to disable agents (with their reason) in its selects.
 */

/**
 * Why an agent with these capabilities cannot drive a backend of this type, as an error code (the
 * spec's eligibility reasons), or null when it can. Null capabilities: the agent never connected.
 */
export function agentIncapability(capabilities: AgentCapabilities | null, type: BackendType): ErrorCode | null {
  if (capabilities === null) return ErrorCodes.agentNeverConnected;
  if (!capabilities.backend_types.includes(type)) return ErrorCodes.agentBackendTypeNotSupported;
  if (type === 'ipset') {
    if (!capabilities.ipset.command_available) return ErrorCodes.ipsetNoCommand;
    if (!capabilities.ipset.sudo_enabled) return ErrorCodes.ipsetNoSudo;
  }
  if (type === 'nftables') {
    if (capabilities.nftables?.command_available !== true) return ErrorCodes.nftablesNoCommand;
    if (!capabilities.nftables.sudo_enabled) return ErrorCodes.nftablesNoSudo;
  }
  if (type === 'script' && !capabilities.script.enabled) return ErrorCodes.agentScriptsDisabled;
  return null;
}

/**
 * Whether an agent of this version may drive the type (the spec's minimum: 1.9.0 for Sophos, 1.6.0
 * otherwise). An unknown version, or one that does not parse, counts as compatible: the agent itself
 * refuses what it cannot do.
 */
export function agentVersionCompatible(version: string | null, type: BackendType): boolean {
  return version === null || versionAtLeast(version, minimumAgentVersion(type));
}

/**
 * Semantic version comparison on major.minor.patch (a leading "v" and any pre-release or build
 * suffix are ignored, missing parts count as 0). A version that does not parse counts as at least.
 */
export function versionAtLeast(version: string, minimum: string): boolean {
  const have = parseVersion(version);
  const need = parseVersion(minimum);
  if (have === null || need === null) return true;
  for (let i = 0; i < 3; i += 1) {
    const a = have[i] ?? 0;
    const b = need[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

function parseVersion(text: string): number[] | null {
  const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+].*)?$/.exec(text.trim());
  if (match === null) return null;
  return [match[1], match[2], match[3]].map((part) => (part === undefined ? 0 : Number(part)));
}
