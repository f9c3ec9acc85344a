import { describe, expect, it } from 'vitest';
import {
  agentBackendType,
  APPLICATION_TYPES,
  applicationTypeOfConfig,
  isStepDisabled,
  isVendorFixed,
  knocBackendType,
  nextStep,
  previousStep,
  VENDORS,
  vendorBackendType,
  vendorForType,
  type ApplicationStep,
  type ApplicationType,
} from './application-flow';

/** Walks the wizard from settings with Next until the review. */
function forwardPath(type: ApplicationType): ApplicationStep[] {
  const path: ApplicationStep[] = ['settings'];
  for (let step = nextStep('settings', type); step !== null; step = nextStep(step, type)) path.push(step);
  return path;
}

describe('application wizard flow', () => {
  it.each([
    ['passive', ['settings', 'options', 'apiKey', 'members', 'review']],
    ['passive+', ['settings', 'options', 'apiKey', 'agent', 'members', 'review']],
    ['active', ['settings', 'options', 'agent', 'members', 'review']],
  ] as const)('goes forward for %s through %j', (type, path) => {
    expect(forwardPath(type)).toEqual(path);
  });

  it.each([
    ['agent', 'active', 'options'],
    ['agent', 'passive+', 'apiKey'],
    ['members', 'passive', 'apiKey'],
    ['members', 'passive+', 'agent'],
    ['members', 'active', 'agent'],
    ['apiKey', 'passive', 'options'],
    ['review', 'active', 'members'],
    ['options', 'passive', 'settings'],
    ['settings', 'passive', null],
  ] as const)('goes back from %s for %s to %s', (step, type, expected) => {
    expect(previousStep(step, type)).toBe(expected);
  });

  it.each(APPLICATION_TYPES)('mirrors every forward move with Back for %s', (type) => {
    const path = forwardPath(type);
    for (let index = 1; index < path.length; index++) {
      expect(previousStep(path[index]!, type)).toBe(path[index - 1]);
    }
  });

  it.each([
    ['passive', { apiKey: false, agent: true }],
    ['passive+', { apiKey: false, agent: false }],
    ['active', { apiKey: true, agent: false }],
  ] as const)('disables the API key and agent steps by type (%s)', (type, disabled) => {
    expect(isStepDisabled('apiKey', type)).toBe(disabled.apiKey);
    expect(isStepDisabled('agent', type)).toBe(disabled.agent);
    for (const step of ['settings', 'options', 'members', 'review'] as const) {
      expect(isStepDisabled(step, type)).toBe(false);
    }
  });

  it.each(APPLICATION_TYPES)('never walks into a disabled step (%s)', (type) => {
    expect(forwardPath(type).filter((step) => isStepDisabled(step, type))).toEqual([]);
  });
});

describe('application vendor rules', () => {
  it('forces palo for passive+ whatever was chosen, and locks the select', () => {
    for (const vendor of VENDORS) expect(vendorForType('passive+', vendor)).toBe('palo');
    expect(isVendorFixed('passive+')).toBe(true);
    expect(isVendorFixed('active')).toBe(false);
    expect(isVendorFixed('passive')).toBe(false);
  });

  it('defaults active to fortinet on create but keeps the vendor when updating', () => {
    expect(vendorForType('active', 'aws')).toBe('fortinet');
    expect(vendorForType('active', 'aws', true)).toBe('aws');
  });

  it('keeps the chosen vendor for passive', () => {
    expect(vendorForType('passive', 'sophosutm')).toBe('sophosutm');
  });

  it.each([
    ['fortinet', 'fortios'],
    ['fortimanager', 'fortimanager'],
    ['palo', 'panos'],
    ['firepower', 'firepower'],
    ['sophosutm', 'sophosutm'],
    ['sophossfos', 'sophossfos'],
    ['aws', 'aws'],
    ['azure', 'azure'],
  ] as const)('drives %s with a %s backend when active, with an agent of that type', (vendor, type) => {
    expect(knocBackendType('active', vendor)).toBe(type);
    expect(vendorBackendType('active', vendor)).toBe(type);
    expect(agentBackendType('active', vendor)).toBe(type);
  });

  it('publishes an allowlist for passive, with no vendor backend and no agent', () => {
    expect(knocBackendType('passive', 'fortinet')).toBe('allowlist');
    expect(vendorBackendType('passive', 'fortinet')).toBeNull();
    expect(agentBackendType('passive', 'fortinet')).toBeNull();
  });

  it('publishes an allowlist for passive+ refreshed through a PAN-OS backend on an agent', () => {
    expect(knocBackendType('passive+', 'palo')).toBe('allowlist');
    expect(vendorBackendType('passive+', 'fortinet')).toBe('panos');
    expect(agentBackendType('passive+', 'palo')).toBe('panos');
  });

  it.each([
    ['allowlist', {}, false, 'passive'],
    ['allowlist', {}, true, 'passive+'],
    ['panos', { EDLName: 'postern-edl' }, false, 'passive+'],
    ['panos', { EDLName: '' }, false, 'active'],
    ['fortios', { Name: 'x' }, false, 'active'],
  ] as const)('reads a stored %s knoc %j (children: %s) as %s', (type, fields, children, expected) => {
    expect(applicationTypeOfConfig(type, fields, children)).toBe(expected);
  });
});
