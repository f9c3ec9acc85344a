import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VENDOR_BACKEND_TYPES } from '@postern/protocol';
import { drivenBackendTypes } from '../drivers/index.js';
import { detectCapabilities, detectIpset, detectNftables } from './index.js';

/** The vendor types this agent has drivers for (registry order), after the local types a test expects. */
const VENDORS = drivenBackendTypes().filter((type) => VENDOR_BACKEND_TYPES.includes(type));

/**
 * These tests stand in for the ipset and nft programs with small shell scripts (the real ones need
 * root and a network namespace; tests/system/drivers-ipset and drivers-nftables drive them).
 */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'postern-capabilities-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const TERSE = [
  'Name: granted_v4',
  'Type: hash:ip',
  'Header: family inet hashsize 1024 maxelem 65536 timeout 0',
  '',
  'Name: granted_v6',
  'Type: hash:ip',
  'Header: family inet6 hashsize 1024 maxelem 65536 timeout 0',
  '',
  'Name: not_allowed',
  'Type: hash:ip',
  'Header: family inet hashsize 1024 maxelem 65536 timeout 0',
].join('\n');

/** A stand-in ipset: `version` exits with `versionStatus`, `list -terse` prints TERSE. */
function fakeIpset(versionStatus: number): string[] {
  const file = path.join(dir, 'ipset');
  writeFileSync(
    file,
    `#!/bin/sh\ncase "$1" in\n  version) exit ${versionStatus} ;;\n  list) cat <<'END'\n${TERSE}\nEND\n ;;\nesac\n`,
  );
  chmodSync(file, 0o755);
  return [file];
}

const ipsetConfig = (useSudo: boolean) => ({
  ipset: { allowedSets: ['granted_v4', 'granted_v6', 'absent'], useSudo },
});

describe('detectIpset', () => {
  it('lists the allowed sets that exist, with their families, when running as root', async () => {
    const result = await detectIpset(ipsetConfig(false), {
      command: fakeIpset(0),
      installed: () => true,
      isRoot: () => true,
    });

    expect(result).toEqual({
      command_available: true,
      sudo_enabled: true,
      ipsets: [
        { name: 'granted_v4', address_family: 'inet' },
        { name: 'granted_v6', address_family: 'inet6' },
      ],
    });
  });

  it('reports ipset unusable for an agent that is neither root nor allowed to use sudo', async () => {
    const result = await detectIpset(ipsetConfig(false), {
      command: fakeIpset(0),
      installed: () => true,
      isRoot: () => false,
    });

    expect(result).toEqual({ command_available: true, sudo_enabled: false, ipsets: [] });
  });

  it('reports sudo not enabled when ipset through sudo fails', async () => {
    const result = await detectIpset(ipsetConfig(true), {
      command: fakeIpset(1),
      installed: () => true,
      isRoot: () => false,
    });

    expect(result).toEqual({ command_available: true, sudo_enabled: false, ipsets: [] });
  });

  it('reports sudo enabled when ipset through sudo works', async () => {
    const result = await detectIpset(ipsetConfig(true), {
      command: fakeIpset(0),
      installed: () => true,
      isRoot: () => false,
    });

    expect(result.sudo_enabled).toBe(true);
    expect(result.ipsets).toHaveLength(2);
  });

  it('reports the command unavailable when ipset is not installed', async () => {
    const result = await detectIpset(ipsetConfig(false), { command: ['/nonexistent/ipset'], installed: () => false });

    expect(result).toEqual({ command_available: false, sudo_enabled: false, ipsets: [] });
  });
});

/** What a stand-in `nft -j list sets` prints: two allowed sets, one not allowed, one of another type. */
const NFT_SETS = JSON.stringify({
  nftables: [
    { metainfo: { version: '1.0.6', json_schema_version: 1 } },
    { set: { family: 'inet', name: 'allow4', table: 'postern', type: 'ipv4_addr', handle: 1, flags: ['timeout'] } },
    { set: { family: 'inet', name: 'allow6', table: 'postern', type: 'ipv6_addr', handle: 2 } },
    { set: { family: 'inet', name: 'other', table: 'postern', type: 'ipv4_addr', handle: 3, flags: ['timeout'] } },
    { set: { family: 'inet', name: 'ports', table: 'postern', type: 'inet_service', handle: 4 } },
    { set: { family: 'ip', name: 'allow4', table: 'postern', type: 'ipv4_addr', handle: 1, flags: ['timeout'] } },
  ],
});

/** A stand-in nft: `-j list sets` exits with `status` and prints NFT_SETS; it records its arguments. */
function fakeNft(status: number): string[] {
  const file = path.join(dir, 'nft');
  writeFileSync(file, `#!/bin/sh\necho "$@" >> '${dir}/nft-args'\ncat <<'END'\n${NFT_SETS}\nEND\nexit ${status}\n`);
  chmodSync(file, 0o755);
  return [file];
}

const nftablesConfig = (useSudo: boolean) => ({
  nftables: {
    allowedSets: ['inet/postern/allow4', 'inet/postern/allow6', 'inet/postern/ports', 'inet/postern/absent'],
    useSudo,
  },
});

describe('detectNftables', () => {
  it('lists the allowed sets that exist, with family, table, type and timeout flag, when running as root', async () => {
    const result = await detectNftables(nftablesConfig(false), {
      command: fakeNft(0),
      installed: () => true,
      isRoot: () => true,
    });

    expect(result).toEqual({
      command_available: true,
      sudo_enabled: true,
      sets: [
        { family: 'inet', table: 'postern', name: 'allow4', type: 'ipv4_addr', timeout: true },
        { family: 'inet', table: 'postern', name: 'allow6', type: 'ipv6_addr', timeout: false },
      ],
    });
    expect(readFileSync(path.join(dir, 'nft-args'), 'utf8')).toBe('-j list sets\n');
  });

  it('reports nft unusable for an agent that is neither root nor allowed to use sudo, without running it', async () => {
    const result = await detectNftables(nftablesConfig(false), {
      command: fakeNft(0),
      installed: () => true,
      isRoot: () => false,
    });

    expect(result).toEqual({ command_available: true, sudo_enabled: false, sets: [] });
    expect(existsSync(path.join(dir, 'nft-args'))).toBe(false);
  });

  it('reports sudo not enabled when nft through sudo fails, and enabled when it works', async () => {
    const probe = { installed: () => true, isRoot: () => false };

    expect(await detectNftables(nftablesConfig(true), { ...probe, command: fakeNft(1) })).toEqual({
      command_available: true,
      sudo_enabled: false,
      sets: [],
    });
    const working = await detectNftables(nftablesConfig(true), { ...probe, command: fakeNft(0) });
    expect(working.sudo_enabled).toBe(true);
    expect(working.sets).toHaveLength(2);
  });

  it('reports the command unavailable when nft is not installed', async () => {
    const result = await detectNftables(nftablesConfig(false), {
      command: ['/nonexistent/nft'],
      installed: () => false,
    });

    expect(result).toEqual({ command_available: false, sudo_enabled: false, sets: [] });
  });

  it('reports no sets for a configuration without an nftables section', async () => {
    const result = await detectNftables({}, { command: fakeNft(0), installed: () => true, isRoot: () => true });

    expect(result).toEqual({ command_available: true, sudo_enabled: true, sets: [] });
  });
});

describe('detectCapabilities', () => {
  const base = {
    ipset: { allowedSets: [], useSudo: false },
    haproxy: { socket: null },
    scripts: { enabled: false, directory: '/etc/postern-agent/scripts', timeoutSeconds: 30 },
  };

  it('reports the os-release, scripts off, no HAProxy socket and the backend types it can drive', async () => {
    const osRelease = path.join(dir, 'os-release');
    writeFileSync(osRelease, 'NAME="Debian GNU/Linux"\nVERSION="12 (bookworm)"\n');

    const capabilities = await detectCapabilities(base, {
      osReleaseFiles: [osRelease],
      ipsetCommand: fakeIpset(0),
      ipsetInstalled: () => true,
      nftablesCommand: fakeNft(0),
      nftablesInstalled: () => true,
      isRoot: () => true,
    });

    expect(capabilities).toEqual({
      'os-release': { NAME: 'Debian GNU/Linux', VERSION: '12 (bookworm)' },
      ipset: { command_available: true, sudo_enabled: true, ipsets: [] },
      nftables: { command_available: true, sudo_enabled: true, sets: [] },
      script: { enabled: false },
      haproxy: { socket_location: '' },
      backend_types: ['ipset', 'nftables', 'haproxy', 'knocproxy', ...VENDORS],
    });
  });

  it('reports enabled scripts, the HAProxy socket as configured, and no ipset without the program', async () => {
    const capabilities = await detectCapabilities(
      {
        ...base,
        haproxy: { socket: { kind: 'tcp', host: '::1', port: 9999 } },
        scripts: { ...base.scripts, enabled: true },
      },
      { osReleaseFiles: [], ipsetInstalled: () => false, nftablesInstalled: () => false },
    );

    expect(capabilities.nftables).toEqual({ command_available: false, sudo_enabled: false, sets: [] });
    expect(capabilities.script).toEqual({ enabled: true });
    expect(capabilities.haproxy).toEqual({ socket_location: 'tcp://[::1]:9999' });
    expect(capabilities.backend_types).toEqual(['haproxy', 'knocproxy', 'script', ...VENDORS]);
    expect(VENDORS).toEqual(expect.arrayContaining(['fortios', 'fortimanager', 'panos', 'firepower']));
    expect(capabilities['os-release']).toEqual({ NAME: 'Linux', VERSION: '' });
  });
});
