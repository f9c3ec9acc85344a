import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VENDOR_BACKEND_TYPES } from '@postern/protocol';
import { drivenBackendTypes } from '../drivers/index.js';
import { detectCapabilities, detectIpset } from './index.js';

/** The vendor types this agent has drivers for (registry order), after the local types a test expects. */
const VENDORS = drivenBackendTypes().filter((type) => VENDOR_BACKEND_TYPES.includes(type));

/**
 * These tests stand in for the ipset program with a small shell script (the real one needs root and
 * a network namespace; tests/system/drivers-ipset.system.test.ts drives it).
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
      isRoot: () => true,
    });

    expect(capabilities).toEqual({
      'os-release': { NAME: 'Debian GNU/Linux', VERSION: '12 (bookworm)' },
      ipset: { command_available: true, sudo_enabled: true, ipsets: [] },
      script: { enabled: false },
      haproxy: { socket_location: '' },
      backend_types: ['ipset', 'haproxy', 'knocproxy', ...VENDORS],
    });
  });

  it('reports enabled scripts, the HAProxy socket as configured, and no ipset without the program', async () => {
    const capabilities = await detectCapabilities(
      {
        ...base,
        haproxy: { socket: { kind: 'tcp', host: '::1', port: 9999 } },
        scripts: { ...base.scripts, enabled: true },
      },
      { osReleaseFiles: [], ipsetInstalled: () => false },
    );

    expect(capabilities.script).toEqual({ enabled: true });
    expect(capabilities.haproxy).toEqual({ socket_location: 'tcp://[::1]:9999' });
    expect(capabilities.backend_types).toEqual(['haproxy', 'knocproxy', 'script', ...VENDORS]);
    expect(VENDORS).toEqual(expect.arrayContaining(['fortios', 'fortimanager', 'panos', 'firepower']));
    expect(capabilities['os-release']).toEqual({ NAME: 'Linux', VERSION: '' });
  });
});
