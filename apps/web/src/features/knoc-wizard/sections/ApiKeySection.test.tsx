import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { Button } from '@mantine/core';
import { ApiKeyListResponse } from '@postern/protocol';
import { useZodForm } from '@/lib/forms/use-zod-form';
import { renderUi } from '@/test-support/render-ui';
import { data, installTypedFakeApi } from '@/test-support/typed-fake-api';
import { apiKey } from '@/test-support/records/api-keys';
import { apiKeysScreen as en } from '@/i18n/locales/en/apiKeys-screen';
import { ApiKeySection } from './ApiKeySection';
import {
  allowlistAccess,
  apiKeyStepSchema,
  canAdvanceApiKeyStep,
  initialApiKeyStepValues,
  toWizardApiKey,
} from './api-key-step';

vi.setConfig({ testTimeout: 20_000 });

/** The section with a Next button that, like the stepper, validates the form before moving on. */
function Harness({ onValid }: { onValid: (result: unknown) => void }) {
  const form = useZodForm({
    schema: apiKeyStepSchema(['taken key']),
    initialValues: initialApiKeyStepValues(['Anywhere (IPv4)', 'Anywhere (IPv6)']),
  });
  return (
    <>
      <ApiKeySection form={form} />
      <Button
        disabled={!canAdvanceApiKeyStep(form.values)}
        onClick={() => {
          if (!form.validate().hasErrors) {
            onValid({ ApiKey: toWizardApiKey(form.values), access: allowlistAccess(form.values) });
          }
        }}
      >
        Next
      </Button>
    </>
  );
}

function renderSection() {
  const api = installTypedFakeApi({
    'GET /api/admin/api-keys': data(ApiKeyListResponse, [
      apiKey({ ID: 'key-1', Name: 'ci-pipeline' }),
      apiKey({ ID: 'key-2', Name: 'firewall', AllowedFrom: [{ Prefix: '198.51.100.7/32', Note: 'edge' }] }),
    ]),
  });
  const onValid = vi.fn();
  return { api, onValid, ...renderUi(<Harness onValid={onValid} />) };
}

const next = () => screen.getByRole('button', { name: 'Next' });

describe('API key step', () => {
  it('starts with a new key allowed from anywhere and a note placeholder from the five variants', () => {
    renderSection();
    expect(screen.getByRole('radio', { name: 'New API key' })).toBeChecked();
    expect(screen.getByRole('textbox', { name: 'Address range 1' })).toHaveValue('0.0.0.0/0');
    expect(screen.getByRole('textbox', { name: 'Address range 2' })).toHaveValue('::/0');
    expect(screen.getByRole('textbox', { name: 'Note 1' })).toHaveValue('Anywhere (IPv4)');
    const placeholder = screen.getByRole('textbox', { name: 'Note 1' }).getAttribute('placeholder');
    expect(Object.values(en.apiKeysScreen.notePlaceholder)).toContain(placeholder);
  });

  it('needs a name for a new key that no other key has', async () => {
    const { user, onValid } = renderSection();
    await user.click(next());
    expect(await screen.findByText('Name is required')).toBeInTheDocument();
    await user.type(screen.getByRole('textbox', { name: 'API key name' }), 'taken key');
    await user.click(next());
    expect(await screen.findByText('An API key with that name already exists')).toBeInTheDocument();
    expect(onValid).not.toHaveBeenCalled();
  });

  it('refuses an allowed-from entry that is no CIDR or has no note', async () => {
    const { user, onValid } = renderSection();
    await user.type(screen.getByRole('textbox', { name: 'API key name' }), 'partner key');
    const prefix = screen.getByRole('textbox', { name: 'Address range 1' });
    await user.clear(prefix);
    await user.type(prefix, '10.0.0.0/33');
    await user.clear(screen.getByRole('textbox', { name: 'Note 2' }));
    await user.click(next());
    expect(await screen.findByText('Enter an address range in CIDR notation, such as 192.0.2.0/24')).toBeVisible();
    expect(screen.getByText('Note is required')).toBeVisible();
    expect(onValid).not.toHaveBeenCalled();
  });

  it('sends a new key with its trimmed entries and no expiry', async () => {
    const { user, onValid } = renderSection();
    await user.type(screen.getByRole('textbox', { name: 'API key name' }), ' partner key ');
    await user.click(screen.getByRole('button', { name: 'Remove address range 2' }));
    await user.click(next());
    expect(onValid).toHaveBeenCalledWith({
      ApiKey: { Option: 'new', Name: 'partner key', AllowedFrom: [{ Prefix: '0.0.0.0/0', Note: 'Anywhere (IPv4)' }] },
      access: { AllowAccessByIp: false, AllowedIpAddresses: [] },
    });
  });

  it('lists the existing keys and moves on only once one is chosen', async () => {
    const { user, onValid } = renderSection();
    await user.click(screen.getByRole('radio', { name: 'Existing API key' }));
    const table = await screen.findByRole('table', { name: 'API keys' });
    expect(within(table).getByText('198.51.100.7/32')).toBeVisible();
    expect(next()).toBeDisabled();
    await user.click(within(table).getByRole('radio', { name: 'Choose the API key firewall' }));
    expect(next()).toBeEnabled();
    await user.click(next());
    expect(onValid).toHaveBeenCalledWith({
      ApiKey: { Option: 'existing', ID: 'key-2' },
      access: { AllowAccessByIp: false, AllowedIpAddresses: [] },
    });
  });

  it('warns without a key and needs at least one valid address range', async () => {
    const { user, onValid } = renderSection();
    await user.click(screen.getByRole('radio', { name: 'No API key' }));
    expect(screen.getByText('The allowlist is not protected by a key')).toBeVisible();
    await user.click(next());
    expect(await screen.findByText('At least one IP range must be present')).toBeVisible();
    const range = screen.getByRole('textbox', { name: 'Address range 1' });
    await user.type(range, '203.0.113.0');
    await user.click(next());
    expect(await screen.findByText('Enter an address range in CIDR notation, such as 192.0.2.0/24')).toBeVisible();
    await user.type(range, '/24');
    await user.click(screen.getByRole('button', { name: 'Add address range' }));
    await user.click(next());
    expect(onValid).toHaveBeenCalledWith({
      ApiKey: { Option: 'none' },
      access: { AllowAccessByIp: true, AllowedIpAddresses: ['203.0.113.0/24'] },
    });
  });

  it('keeps what was typed for a new key when switching options and back', async () => {
    const { user } = renderSection();
    await user.type(screen.getByRole('textbox', { name: 'API key name' }), 'partner key');
    await user.click(screen.getByRole('radio', { name: 'No API key' }));
    await user.click(screen.getByRole('radio', { name: 'New API key' }));
    expect(screen.getByRole('textbox', { name: 'API key name' })).toHaveValue('partner key');
  });
});
