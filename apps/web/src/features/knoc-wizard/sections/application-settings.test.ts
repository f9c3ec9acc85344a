import { describe, expect, it } from 'vitest';
import { zodFormErrors } from '@/lib/forms/zod-form-errors';
import {
  applicationSettingsSchema,
  changeApplication,
  initialApplicationSettings,
  type ApplicationSettingsValues,
} from './application-settings';

const errorsOf = (values: ApplicationSettingsValues) => zodFormErrors(applicationSettingsSchema, values, (key) => key);

function settings(patch: Partial<ApplicationSettingsValues> = {}): ApplicationSettingsValues {
  return { ...initialApplicationSettings(), Description: 'Partner firewall', ...patch };
}

describe('application settings', () => {
  it('starts passive with no vendor config to fill in', () => {
    expect(initialApplicationSettings()).toMatchObject({ ApplicationType: 'passive', Backend: {}, Acl: {} });
    expect(errorsOf(settings())).toEqual({});
  });

  it('forces palo with the PAN-OS defaults when passive+ is chosen', () => {
    const next = changeApplication(settings({ Vendor: 'aws' }), { ApplicationType: 'passive+' });
    expect(next.Vendor).toBe('palo');
    expect(next.Backend).toMatchObject({ Hostname: '', ApiKey: '', VSys: 'vsys1', DeviceGroup: '' });
    expect(next.Acl).toMatchObject({ EDLName: '', SerialNumber: '' });
  });

  it('defaults active to fortinet with the FortiOS defaults', () => {
    const next = changeApplication(settings({ Vendor: 'aws' }), { ApplicationType: 'active' });
    expect(next.Vendor).toBe('fortinet');
    expect(next.Backend).toMatchObject({ Url: '', Bearer: '', Prefix: 'kk_', VDOM: '' });
    expect(next.Acl).toEqual({ Name: '' });
  });

  it('starts the config again for another vendor, with its defaults', () => {
    const active = changeApplication(settings(), { ApplicationType: 'active' });
    const azure = changeApplication(
      { ...active, Backend: { ...active.Backend, Url: 'https://fw' } },
      { Vendor: 'azure' },
    );
    expect(azure.Backend).toEqual({ ClientId: '', ClientSecret: '', TenantId: '', NoCache: false });
    expect(azure.Acl).toMatchObject({ NsgDirection: 'Inbound', NsgPort: 443 });
    expect(changeApplication(active, { Vendor: 'aws' }).Acl).toMatchObject({ Port: 22 });
  });

  it('keeps what was typed when the backend type stays PAN-OS (passive+ to active palo)', () => {
    const plus = changeApplication(settings(), { ApplicationType: 'passive+' });
    const typed = { ...plus, Backend: { ...plus.Backend, Hostname: 'pan.example.net' } };
    const active = changeApplication(typed, { ApplicationType: 'active' });
    expect(active.Vendor).toBe('fortinet');
    const palo = changeApplication(active, { Vendor: 'palo' });
    expect(palo.Backend.Hostname).toBe('');
    const back = changeApplication(typed, { Vendor: 'palo' });
    expect(back.Backend.Hostname).toBe('pan.example.net');
  });

  it('requires the description and an http(s) URL', () => {
    const errors = errorsOf(settings({ Description: '', URL: 'ftp://files' }));
    expect(Object.keys(errors).sort()).toEqual(['Description', 'URL']);
  });

  it("checks the vendor's backend and rule fields under Backend and Acl", () => {
    const active = changeApplication(settings(), { ApplicationType: 'active' });
    expect(Object.keys(errorsOf(active)).sort()).toEqual(['Acl.Name', 'Backend.Bearer', 'Backend.Url']);
    const filled = {
      ...active,
      Backend: { ...active.Backend, Url: 'https://fw.example.net', Bearer: 't' },
      Acl: { Name: 'kk' },
    };
    expect(errorsOf(filled)).toEqual({});
    expect(errorsOf({ ...filled, Backend: { ...filled.Backend, Url: 'fw.example.net' } })).toHaveProperty(
      'Backend.Url',
    );
  });

  it('needs the EDL name for passive+, and the serial number through Panorama', () => {
    const plus = changeApplication(settings(), { ApplicationType: 'passive+' });
    const connected = { ...plus, Backend: { ...plus.Backend, Hostname: 'pan.example.net', ApiKey: 'k' } };
    expect(Object.keys(errorsOf(connected))).toEqual(['Acl.EDLName']);
    const named = { ...connected, Acl: { ...connected.Acl, EDLName: 'postern-edl' } };
    expect(errorsOf(named)).toEqual({});
    const panorama = { ...named, Backend: { ...named.Backend, DeviceGroup: 'branch' } };
    expect(Object.keys(errorsOf(panorama))).toEqual(['Acl.SerialNumber']);
  });

  it('needs the address group for an active PAN-OS knoc', () => {
    const palo = changeApplication(changeApplication(settings(), { ApplicationType: 'active' }), { Vendor: 'palo' });
    const connected = { ...palo, Backend: { ...palo.Backend, Hostname: 'pan.example.net', ApiKey: 'k' } };
    expect(Object.keys(errorsOf(connected))).toEqual(['Acl.GroupName']);
  });
});
