import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { RECORDED, type BackendType } from '@postern/protocol';
import { renderUi } from '@/test-support/render-ui';
import { agentRecord, nftablesCapabilities } from '@/test-support/records/agents';
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

  describe('an nftables knoc', () => {
    const agent = agentRecord({ Capabilities: nftablesCapabilities() });

    /** The options of a Select, whose dropdown stays hidden in jsdom. */
    async function optionsOf(user: Awaited<ReturnType<typeof renderUi>>['user'], name: string) {
      const combobox = screen.getByRole('combobox', { name });
      await user.click(combobox);
      const listbox = await waitFor(() => {
        const element = document.getElementById(combobox.getAttribute('aria-controls') ?? '');
        if (element === null) throw new Error('no listbox yet');
        return element;
      });
      return within(listbox).getAllByRole('option', { hidden: true });
    }

    it('offers the sets the agent reported in the backend’s table, by address type', async () => {
      const onSubmit = vi.fn();
      const { user } = renderUi(
        <ConfigFieldsHarness
          kind="acl"
          type="nftables"
          initial={defaultAclConfig('nftables')}
          agent={agent}
          backendConfig={{ Family: 'inet', Table: 'postern' }}
          onSubmit={onSubmit}
        />,
      );
      const v6 = await optionsOf(user, 'IPv6 set');
      expect(v6.map((option) => option.textContent)).toEqual(['allow6']);
      await user.click(v6[0] as HTMLElement);
      await user.click(screen.getByRole('button', { name: 'Submit' }));
      expect(onSubmit).toHaveBeenCalledWith({ V4SetName: '', V6SetName: 'allow6' });
    });

    it('lists a set without flags timeout disabled, saying why', async () => {
      const { user } = renderUi(
        <ConfigFieldsHarness
          kind="acl"
          type="nftables"
          initial={defaultAclConfig('nftables')}
          agent={agent}
          backendConfig={{ Family: 'inet', Table: 'postern' }}
        />,
      );
      const v4 = await optionsOf(user, 'IPv4 set');
      expect(v4.map((option) => option.textContent)).toEqual([
        'allow4',
        'static4 (no timeout flag: Postern needs flags timeout)',
      ]);
      expect(v4[1]).toHaveAttribute('data-combobox-disabled', 'true');
      expect(v4[0]).not.toHaveAttribute('data-combobox-disabled');
    });

    it('offers nothing of another table, and needs at least one set', async () => {
      const { user } = renderUi(
        <ConfigFieldsHarness
          kind="acl"
          type="nftables"
          initial={defaultAclConfig('nftables')}
          agent={agent}
          backendConfig={{ Family: 'ip6', Table: 'postern' }}
        />,
      );
      expect(screen.getByRole('combobox', { name: 'IPv4 set' })).toHaveAttribute(
        'placeholder',
        'The agent reported no sets of this address type in this table',
      );
      await user.click(screen.getByRole('button', { name: 'Submit' }));
      expect(await screen.findByText('At least one IP set name is required')).toBeVisible();
    });
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
