import { BACKEND_TYPES, type BackendType } from '@postern/protocol';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createConfigFixture } from '../test-support/config-fixture.js';
import { closeDrivers, createDrivers } from './index.js';
import { DRIVER_FACTORIES, drivenBackendTypes, type DriverFactory } from './registry.js';

describe('driver registry', () => {
  it('has an entry for every backend type', () => {
    expect(Object.keys(DRIVER_FACTORIES).sort()).toEqual([...BACKEND_TYPES].sort());
  });

  it('fails to compile when a backend type has no entry', () => {
    const { fortios: _omitted, ...partial } = DRIVER_FACTORIES;
    // @ts-expect-error -- fortios is missing, which the registry's `satisfies` refuses.
    const check = partial satisfies Record<BackendType, DriverFactory | null>;
    expect(Object.keys(check)).not.toContain('fortios');
  });

  it('createDrivers builds one driver per type with a factory, of that type', async () => {
    const fixture = createConfigFixture();
    try {
      const { config } = fixture.load();
      const drivers = createDrivers(config, pino({ level: 'silent' }));
      expect([...drivers.keys()].sort()).toEqual(drivenBackendTypes().sort());
      for (const [type, driver] of drivers) expect(driver.type).toBe(type);
      expect(drivenBackendTypes()).toEqual(
        expect.arrayContaining(['ipset', 'nftables', 'haproxy', 'knocproxy', 'script']),
      );
      await closeDrivers(drivers);
    } finally {
      fixture.remove();
    }
  });
});
