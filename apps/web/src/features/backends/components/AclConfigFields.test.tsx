import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { RECORDED, type BackendType } from '@postern/protocol';
import { renderUi } from '@/test-support/render-ui';
import { agentRecord } from '@/test-support/records/agents';
import { defaultAclConfig } from '../backend-defaults';
import { aclConfigValues } from '../config-values';
import { ConfigFieldsHarness } from '@/test-support/components/config-fields';

async function submitWith(type: BackendType, label: string, text: string) {
  const { user } = renderUi(<ConfigFieldsHarness kind="acl" type={type} initial={defaultAclConfig(type)} />);
  if (text !== '') await user.type(screen.getByRole('textbox', { name: label }), text);
  await user.click(screen.getByRole('button', { name: 'Submit' }));
}

describe('AclConfigFields', () => {
  it.each([
    ['haproxy', 'HAProxy ACL ID', '', 'The ACL ID is required'],
    ['haproxy', 'HAProxy ACL ID', '12a', 'The ACL ID must be a number'],
    ['knocproxy', 'ACL name', '', 'The ACL name is required'],
    ['knocproxy', 'ACL name', 'web app', 'Only letters, numbers, and underscores are allowed.'],
    ['script', 'ACL name', 'deploy now', 'Only letters, digits, underscores and hyphens are allowed'],
    ['fortios', 'Address group name', '', 'The ACL name is required'],
  ] as const)('%s: %s %j says %s', async (type, label, text, message) => {
    await submitWith(type, label, text);
    expect(await screen.findByText(message)).toBeVisible();
  });

  it('needs at least one IP set name', async () => {
    const { user } = renderUi(<ConfigFieldsHarness kind="acl" type="ipset" initial={defaultAclConfig('ipset')} />);
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText('At least one IP set name is required')).toBeVisible();
  });

  it('offers the sets the agent reported for each address family', async () => {
    const onSubmit = vi.fn();
    const { user } = renderUi(
      <ConfigFieldsHarness
        kind="acl"
        type="ipset"
        initial={defaultAclConfig('ipset')}
        agent={agentRecord()}
        onSubmit={onSubmit}
      />,
    );
    const combobox = screen.getByRole('combobox', { name: 'IPv4 set' });
    await user.click(combobox);
    // Mantine's dropdown stays display: none in jsdom (its transition never runs), hence `hidden`.
    const listbox = await waitFor(() => {
      const element = document.getElementById(combobox.getAttribute('aria-controls') ?? '');
      if (element === null) throw new Error('no listbox yet');
      return element;
    });
    const options = within(listbox).getAllByRole('option', { hidden: true });
    expect(options.map((option) => option.textContent)).toEqual(['postern-v4']);
    await user.click(within(listbox).getByRole('option', { name: 'postern-v4', hidden: true }));
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(onSubmit).toHaveBeenCalledWith({ V4SetName: 'postern-v4', V6SetName: '' });
  });

  it('defaults the Azure port to 443 and the direction to Inbound', () => {
    renderUi(<ConfigFieldsHarness kind="acl" type="azure" initial={defaultAclConfig('azure')} />);
    expect(screen.getByRole('textbox', { name: 'Port' })).toHaveValue('443');
    expect(screen.getByRole('combobox', { name: 'Direction' })).toHaveValue('Inbound');
  });

  it('shows a stored sensitive value as RECORDED and keeps it when left empty', async () => {
    const onSubmit = vi.fn();
    const stored = { Name: 'deploy', EnvVars: [{ Name: 'TOKEN', Value: RECORDED, Sensitive: true, Encrypted: true }] };
    const { user } = renderUi(
      <ConfigFieldsHarness
        kind="acl"
        type="script"
        mode="update"
        initial={aclConfigValues('script', stored)}
        onSubmit={onSubmit}
      />,
    );
    const value = screen.getByLabelText('Value of variable 1');
    expect(value).toHaveAttribute('type', 'password');
    expect(value).toHaveAttribute('placeholder', RECORDED);
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(onSubmit).toHaveBeenCalledWith({
      Name: 'deploy',
      EnvVars: [{ Name: 'TOKEN', Value: '', Sensitive: true, Encrypted: true }],
    });
  });

  it('needs a value for a named variable and unique names', async () => {
    const initial = {
      Name: '',
      EnvVars: [
        { Name: 'REGION', Value: '', Sensitive: false, Encrypted: false },
        { Name: 'REGION', Value: 'eu', Sensitive: false, Encrypted: false },
      ],
    };
    const { user } = renderUi(<ConfigFieldsHarness kind="acl" type="script" initial={initial} />);
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText('An environment variable needs a value')).toBeVisible();
    expect(screen.getAllByText('Environment variable names must be unique')[0]).toBeVisible();
  });

  it('shows no fields for an allowlist knoc', () => {
    renderUi(<ConfigFieldsHarness kind="acl" type="allowlist" initial={defaultAclConfig('allowlist')} />);
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
  });
});
