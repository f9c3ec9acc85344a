import { describe, expect, it } from 'vitest';
import { agentVersionState, compareVersions, newestVersion, versionPolicy } from './agent-version';

describe('compareVersions', () => {
  it.each([
    ['1.9.0', '1.9.0', 0],
    ['1.9', '1.9.0', 0],
    ['v1.9.0', '1.9.0', 0],
    ['1.10.0', '1.9.0', 1],
    ['1.5.9', '1.6.0', -1],
    ['2.0.0', '1.99.99', 1],
    ['1.9.0-rc.1', '1.9.0', -1],
    ['1.9.0', '1.9.0-rc.1', 1],
    ['1.9.0+build.7', '1.9.0', 0],
  ])('compares %s with %s as %i', (a, b, expected) => {
    expect(compareVersions(a, b)).toBe(expected);
  });

  it('says nothing about what is not a version', () => {
    expect(compareVersions('dev', '1.0.0')).toBeNull();
    expect(compareVersions('1.0.0', '')).toBeNull();
  });
});

describe('newestVersion', () => {
  it('picks the highest version numerically and skips what does not parse', () => {
    expect(newestVersion(['1.9.0', '1.10.0', 'nightly', '1.2.0'])).toBe('1.10.0');
    expect(newestVersion([])).toBeNull();
  });
});

describe('versionPolicy', () => {
  it('takes the minimum from the status and the newest of the server version and the feed', () => {
    const status = {
      MinimumRequiredAgentVersion: '1.6.0',
      ServerVersion: '1.9.0',
      AvailableAgentVersions: [{ version: '1.9.2' }, { version: '1.8.0' }],
    };
    expect(versionPolicy(status)).toEqual({ minimum: '1.6.0', newest: '1.9.2' });
    expect(versionPolicy({ ...status, AvailableAgentVersions: [] })).toEqual({ minimum: '1.6.0', newest: '1.9.0' });
  });
});

describe('agentVersionState (spec: red below the minimum, yellow below the newest, else green)', () => {
  const policy = { minimum: '1.6.0', newest: '1.9.0' };

  it.each([
    ['1.5.9', 'incompatible'],
    ['1.6.0-rc.1', 'incompatible'],
    ['1.6.0', 'outdated'],
    ['1.8.9', 'outdated'],
    ['1.9.0', 'current'],
    ['1.10.0', 'current'],
  ] as const)('calls %s %s', (version, state) => {
    expect(agentVersionState(version, policy)).toBe(state);
  });

  it('cannot judge an agent that never said its version, or said nonsense', () => {
    expect(agentVersionState(null, policy)).toBe('unknown');
    expect(agentVersionState('dev', policy)).toBe('unknown');
  });

  it('calls an agent at or above the minimum up to date when no newer version is known', () => {
    expect(agentVersionState('1.6.0', { minimum: '1.6.0', newest: null })).toBe('current');
  });
});
