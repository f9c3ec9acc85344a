import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { RECORDED } from '@postern/protocol';
import i18n from '@/i18n/i18n';
import { ApiError } from '@/lib/api/api-error';
import { renderUi } from '@/test-support/render-ui';
import { agentCapabilities, agentRecord } from '@/test-support/records/agents';
import { defaultBackendConfig } from '../backend-defaults';
import { backendConfigForRequest, backendConfigValues } from '../config-values';
import { ConfigFieldsHarness } from '@/test-support/components/config-fields';

describe('BackendConfigFields', () => {
  it('shows the type fields with their defaults, the secret as a password', () => {
    renderUi(<ConfigFieldsHarness kind="backend" type="fortios" initial={defaultBackendConfig('fortios')} />);
    expect(screen.getByRole('textbox', { name: 'URL' })).toBeRequired();
    expect(screen.getByLabelText(/^API token/)).toHaveAttribute('type', 'password');
    expect(screen.getByRole('checkbox', { name: 'Skip TLS certificate verification' })).not.toBeChecked();
    expect(screen.getByRole('textbox', { name: 'Address object prefix' })).toHaveValue('kk_');
  });

  it('refuses a URL that is not http or https and a missing secret', async () => {
    const onSubmit = vi.fn();
    const { user } = renderUi(
      <ConfigFieldsHarness
        kind="backend"
        type="fortios"
        initial={defaultBackendConfig('fortios')}
        onSubmit={onSubmit}
      />,
    );
    await user.type(screen.getByRole('textbox', { name: 'URL' }), 'ftp://fw.example.com');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText('URL must be http or https')).toBeVisible();
    expect(screen.getByText('This field is required')).toBeVisible();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('shows RECORDED for a stored secret on update and keeps it when left empty', async () => {
    const onSubmit = vi.fn();
    const stored = {
      Hostname: 'pan-a',
      Insecure: false,
      ApiKey: RECORDED,
      VSys: 'vsys1',
      DeviceGroup: '',
      MapUser: false,
    };
    const { user } = renderUi(
      <ConfigFieldsHarness
        kind="backend"
        type="panos"
        mode="update"
        initial={backendConfigValues('panos', stored)}
        onSubmit={(config) => {
          onSubmit(backendConfigForRequest('panos', config, 'update'));
        }}
      />,
    );
    const secret = screen.getByLabelText(/^API key/);
    expect(secret).toHaveAttribute('placeholder', RECORDED);
    expect(secret).not.toBeRequired();
    expect(secret).toHaveValue('');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ ApiKey: RECORDED })));
  });

  it('lets both AWS keys be left empty (the host credentials), and names the missing half of a pair', async () => {
    const onSubmit = vi.fn();
    const { user } = renderUi(
      <ConfigFieldsHarness kind="backend" type="aws" initial={defaultBackendConfig('aws')} onSubmit={onSubmit} />,
    );
    const keyId = screen.getByRole('textbox', { name: 'Access key ID' });
    expect(keyId).not.toBeRequired();
    expect(screen.getByLabelText(/^Secret access key/)).not.toBeRequired();
    expect(screen.getByText(/Leave both keys empty to use the agent host's AWS credentials/)).toBeVisible();
    await user.type(screen.getByRole('textbox', { name: 'Region' }), 'eu-central-1');
    await user.type(keyId, 'AKIAPOSTERN1');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText(/Enter both the access key ID and the secret access key/)).toBeVisible();
    expect(onSubmit).not.toHaveBeenCalled();

    await user.clear(keyId);
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
  });

  it('puts a server refusal on the field its Extra names, under a nested path', async () => {
    const refusal = new ApiError(400, 'err.urlMustBeHttp', 'Outer.Config.fortios.Url');
    const { user } = renderUi(
      <ConfigFieldsHarness kind="backend" type="fortios" initial={defaultBackendConfig('fortios')} refusal={refusal} />,
    );
    await user.click(screen.getByRole('button', { name: 'Refuse' }));
    expect(await screen.findByText('URL must be http or https')).toBeVisible();
    expect(screen.getByRole('textbox', { name: 'URL' })).toHaveAttribute('aria-invalid', 'true');
  });

  it('offers the Cisco FMC Domain and deployment mode, automatic by default, and sends them', async () => {
    const onSubmit = vi.fn();
    const initial = {
      ...defaultBackendConfig('firepower'),
      Hostname: 'fmc.example.net',
      Username: 'api',
      Password: 'p',
    };
    const { user } = renderUi(
      <ConfigFieldsHarness kind="backend" type="firepower" initial={initial} onSubmit={onSubmit} />,
    );
    const deploy = screen.getByRole('combobox', { name: /^Deployment \(network groups\)/ });
    expect(deploy).toHaveValue('automatic');
    await user.selectOptions(deploy, 'manual');
    await user.type(screen.getByRole('textbox', { name: 'Domain' }), 'Global/Branch');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    await waitFor(() =>
      expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ Domain: 'Global/Branch', Deploy: 'manual' })),
    );
  });

  it('moves an untouched socket address with the protocol, and keeps a customised one', async () => {
    const { user } = renderUi(
      <ConfigFieldsHarness kind="backend" type="haproxy" initial={defaultBackendConfig('haproxy')} />,
    );
    const address = screen.getByRole('textbox', { name: 'Address' });
    expect(address).toHaveValue('/var/run/haproxy.sock');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Protocol' }), 'tcp');
    expect(address).toHaveValue('127.0.0.1:9999');
    await user.clear(address);
    await user.type(address, 'lb.internal:9000');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Protocol' }), 'unix');
    expect(address).toHaveValue('lb.internal:9000');
  });

  it("follows the chosen agent's reported HAProxy socket while creating", () => {
    const agent = agentRecord({ Capabilities: agentCapabilities({ haproxy: { socket_location: '/run/lb.sock' } }) });
    const { rerender } = renderUi(
      <ConfigFieldsHarness kind="backend" type="haproxy" initial={defaultBackendConfig('haproxy')} agent={null} />,
    );
    rerender(
      <ConfigFieldsHarness kind="backend" type="haproxy" initial={defaultBackendConfig('haproxy')} agent={agent} />,
    );
    expect(screen.getByRole('textbox', { name: 'Address' })).toHaveValue('/run/lb.sock');
  });

  it.each([
    [['TOKEN', 'TOKEN'], 'Environment variable names must be unique'],
    [['A=B'], 'An environment variable name cannot contain ='],
    [[''], 'An environment variable needs a name'],
  ])('checks the script variables %j: %s', async (names, message) => {
    const { user } = renderUi(
      <ConfigFieldsHarness kind="backend" type="script" initial={{ Command: 'notify.sh', EnvVars: [] }} />,
    );
    for (const [index, name] of names.entries()) {
      await user.click(screen.getByRole('button', { name: 'Add variable' }));
      if (name !== '') await user.type(screen.getByRole('textbox', { name: `Name of variable ${index + 1}` }), name);
    }
    await user.click(screen.getByRole('checkbox', { name: 'Variable 1 is sensitive' }));
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText(message)).toBeVisible();
  });

  it('offers a webhook secret for a script and refuses a webhook URL without one', async () => {
    const onSubmit = vi.fn();
    const { user } = renderUi(
      <ConfigFieldsHarness kind="backend" type="script" initial={defaultBackendConfig('script')} onSubmit={onSubmit} />,
    );
    const secret = screen.getByLabelText(/^Webhook secret/);
    expect(secret).toHaveAttribute('type', 'password');
    expect(secret).not.toBeRequired();
    await user.type(screen.getByRole('textbox', { name: 'Command' }), 'https://hooks.example.com/grant');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(
      await screen.findByText('A webhook needs a secret of at least 16 characters to sign its requests'),
    ).toBeVisible();
    expect(onSubmit).not.toHaveBeenCalled();

    await user.type(secret, 'webhook-secret-0123456789');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    await waitFor(() =>
      expect(onSubmit).toHaveBeenCalledWith(
        expect.objectContaining({
          Command: 'https://hooks.example.com/grant',
          WebhookSecret: 'webhook-secret-0123456789',
        }),
      ),
    );
  });

  it('refuses a plain-http webhook to another host, in German too', async () => {
    await i18n.changeLanguage('de');
    const { user } = renderUi(
      <ConfigFieldsHarness
        kind="backend"
        type="script"
        initial={{ ...defaultBackendConfig('script'), WebhookSecret: 'webhook-secret-0123456789' }}
      />,
    );
    expect(screen.getByLabelText(/^Webhook-Geheimnis/)).toHaveAttribute('type', 'password');
    await user.type(screen.getByRole('textbox', { name: 'Befehl' }), 'http://hooks.example.com/grant');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText(/^Eine Webhook-URL muss https verwenden/)).toBeVisible();
  });

  it('offers the nftables family (inet by default) and needs the table', async () => {
    const onSubmit = vi.fn();
    const { user } = renderUi(
      <ConfigFieldsHarness
        kind="backend"
        type="nftables"
        initial={defaultBackendConfig('nftables')}
        onSubmit={onSubmit}
      />,
    );
    const family = screen.getByRole('combobox', { name: 'Family' });
    expect(family).toHaveValue('inet');
    expect(Array.from((family as HTMLSelectElement).options).map((option) => option.text)).toEqual([
      'inet (IPv4 and IPv6)',
      'ip (IPv4 only)',
      'ip6 (IPv6 only)',
    ]);
    const table = screen.getByRole('textbox', { name: 'Table' });
    expect(table).toBeRequired();
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText(/^Use a name of a letter followed by letters/)).toBeVisible();
    expect(onSubmit).not.toHaveBeenCalled();

    await user.selectOptions(family, 'ip6');
    await user.type(table, 'postern');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    await waitFor(() =>
      expect(onSubmit).toHaveBeenCalledWith(expect.objectContaining({ Family: 'ip6', Table: 'postern' })),
    );
  });

  describe('the managed rule (end live connections)', () => {
    const submitted = (onSubmit: ReturnType<typeof vi.fn>) =>
      backendConfigForRequest('ipset', onSubmit.mock.calls[0]?.[0] as Record<string, unknown>, 'create');

    it('is off by default, with its help, and then leaves ManagedRule out of the request', async () => {
      const onSubmit = vi.fn();
      const { user } = renderUi(
        <ConfigFieldsHarness kind="backend" type="ipset" initial={defaultBackendConfig('ipset')} onSubmit={onSubmit} />,
      );
      const toggle = screen.getByRole('switch', { name: 'End live connections when access ends' });
      expect(toggle).not.toBeChecked();
      expect(toggle).toHaveAccessibleDescription(/a connection already open stays open after access ends/);
      expect(screen.queryByRole('textbox', { name: 'Chain' })).not.toBeInTheDocument();
      await user.click(screen.getByRole('button', { name: 'Submit' }));
      await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
      expect(submitted(onSubmit)).toEqual({});
    });

    it('switched on, says the agent owns the rule and ends connections, and needs a chain and a port', async () => {
      const onSubmit = vi.fn();
      const { user } = renderUi(
        <ConfigFieldsHarness kind="backend" type="ipset" initial={defaultBackendConfig('ipset')} onSubmit={onSubmit} />,
      );
      await user.click(screen.getByRole('switch', { name: 'End live connections when access ends' }));
      expect(screen.getByText(/The agent then owns this rule in the chain/)).toHaveTextContent(
        "deletes the address's connection-tracking (conntrack) entries",
      );
      expect(screen.getByRole('textbox', { name: 'Chain' })).toHaveAttribute('placeholder', 'INPUT');
      await user.click(screen.getByRole('button', { name: 'Submit' }));
      expect(await screen.findByText(/^Enter the chain’s name/)).toBeVisible();
      expect(screen.getByText('This field is required')).toBeVisible();
      await user.click(screen.getByRole('button', { name: 'Remove port 1' }));
      await user.click(screen.getByRole('button', { name: 'Submit' }));
      expect(await screen.findByText('Enter at least one TCP port')).toBeVisible();
      expect(onSubmit).not.toHaveBeenCalled();
    });

    it('refuses a port outside 1–65535 and a chain that is not a plain name', async () => {
      const { user } = renderUi(
        <ConfigFieldsHarness
          kind="backend"
          type="ipset"
          initial={{ ManagedRule: { Chain: '-j ACCEPT', Ports: [70000] } }}
        />,
      );
      await user.click(screen.getByRole('button', { name: 'Submit' }));
      expect(await screen.findByText('Enter a port from 1 to 65535')).toBeVisible();
      expect(screen.getByText(/^Enter the chain’s name/)).toBeVisible();
    });

    it('sends the chain and ports, and nothing once switched off again', async () => {
      const onSubmit = vi.fn();
      const { user } = renderUi(
        <ConfigFieldsHarness kind="backend" type="ipset" initial={defaultBackendConfig('ipset')} onSubmit={onSubmit} />,
      );
      await user.click(screen.getByRole('switch', { name: 'End live connections when access ends' }));
      await user.type(screen.getByRole('textbox', { name: 'Chain' }), 'INPUT');
      await user.type(screen.getByRole('textbox', { name: 'Port 1' }), '22');
      await user.click(screen.getByRole('button', { name: 'Add port' }));
      await user.type(screen.getByRole('textbox', { name: 'Port 2' }), '443');
      await user.click(screen.getByRole('button', { name: 'Submit' }));
      await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
      expect(submitted(onSubmit)).toEqual({ ManagedRule: { Chain: 'INPUT', Ports: [22, 443] } });

      await user.click(screen.getByRole('switch', { name: 'End live connections when access ends' }));
      expect(screen.queryByRole('textbox', { name: 'Chain' })).not.toBeInTheDocument();
      await user.click(screen.getByRole('button', { name: 'Submit' }));
      await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(2));
      expect(
        backendConfigForRequest('ipset', onSubmit.mock.calls[1]?.[0] as Record<string, unknown>, 'create'),
      ).toEqual({});
    });

    it('takes no more than 32 ports', () => {
      const ports = Array.from({ length: 32 }, (_, index) => 1000 + index);
      renderUi(
        <ConfigFieldsHarness kind="backend" type="ipset" initial={{ ManagedRule: { Chain: 'INPUT', Ports: ports } }} />,
      );
      expect(screen.getByRole('switch', { name: 'End live connections when access ends' })).toBeChecked();
      expect(screen.getByRole('textbox', { name: 'Port 32' })).toHaveValue('1031');
      expect(screen.getByRole('button', { name: 'Add port' })).toBeDisabled();
    });

    it('asks an nftables backend for a chain of its table, in German too', async () => {
      await i18n.changeLanguage('de');
      const { user } = renderUi(
        <ConfigFieldsHarness kind="backend" type="nftables" initial={defaultBackendConfig('nftables')} />,
      );
      await user.click(screen.getByRole('switch', { name: 'Offene Verbindungen beenden, wenn der Zugriff endet' }));
      const chain = screen.getByRole('textbox', { name: 'Chain' });
      expect(chain).toHaveAttribute('placeholder', 'input');
      expect(chain).toHaveAccessibleDescription(/^Eine Chain der Tabelle des Backends/);
    });
  });

  it('removes a variable row', async () => {
    const { user } = renderUi(
      <ConfigFieldsHarness
        kind="backend"
        type="script"
        initial={{ Command: 'notify.sh', EnvVars: [{ Name: 'TOKEN', Sensitive: true }] }}
      />,
    );
    await user.click(screen.getByRole('button', { name: 'Remove variable 1' }));
    expect(screen.queryByRole('textbox', { name: 'Name of variable 1' })).not.toBeInTheDocument();
    expect(screen.getByText('No variables')).toBeVisible();
  });
});
