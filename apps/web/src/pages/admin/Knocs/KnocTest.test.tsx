import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, KnocTestResponse, type KnocTestResult } from '@postern/protocol';
import i18n from '@/i18n/i18n';
import { apiError, data, type TypedHandler } from '@/test-support/typed-fake-api';
import { knocsTable, openKnocs } from '@/test-support/screens/knocs';

const PASSED: KnocTestResult = {
  GrantID: '0190a0b0-0000-7000-8000-0000000000aa',
  IP: '203.0.113.9',
  ExpiresAt: '2026-05-01T10:01:00.000Z',
  Applied: true,
  ReadBack: { State: 'held', Held: true, Detail: '', AgentName: 'edge', ReportedAt: '2026-05-01T10:00:00.000Z' },
  Revoked: true,
  RevokeError: '',
};

/** Opens the knocs screen with `answer` for the test route, and the detail dialog of `name`. */
async function openTest(answer: TypedHandler, name = 'Billing database') {
  const opened = openKnocs({ 'POST /api/admin/knocs/:id/test': answer });
  const table = await knocsTable();
  await opened.user.click(within(table).getByRole('button', { name }));
  const dialog = await screen.findByRole('dialog', { name });
  const section = within(dialog).getByRole('region', { name: i18n.t('knocsScreen.test.title') });
  return { ...opened, dialog, section };
}

describe('knocs screen: Test this knoc', { timeout: 30_000 }, () => {
  it('tests the admin’s own address by default, shows progress, then the read-back and the revoke', async () => {
    let answer: (value: ReturnType<typeof data>) => void = () => undefined;
    const held = new Promise<ReturnType<typeof data>>((resolve) => (answer = resolve));
    const { api, user, section } = await openTest(() => held);

    await user.click(within(section).getByRole('button', { name: 'Test this knoc' }));
    expect(await within(section).findByText('Granting, waiting for the agent’s report, revoking…')).toBeVisible();
    expect(api.calls('POST /api/admin/knocs/:id/test')).toMatchObject([
      { params: { id: 'k-ipset' }, body: { IP: '' } },
    ]);

    answer(data(KnocTestResponse, PASSED));
    const title = await within(section).findByText('The device holds 203.0.113.9');
    expect(within(section).queryByText('Granting, waiting for the agent’s report, revoking…')).not.toBeInTheDocument();
    const result = title.closest<HTMLElement>('[role="status"]');
    if (result === null) throw new Error('the result is not announced');
    expect(result).toHaveTextContent(/Agent edge wrote 203\.0\.113\.9 to the device and read it back there/);
    expect(result).toHaveTextContent('Revoked again; the agent took it off the device.');
  });

  it('sends the address the admin typed', async () => {
    const { api, user, section } = await openTest(data(KnocTestResponse, { ...PASSED, IP: '198.51.100.7' }));
    await user.type(within(section).getByRole('textbox', { name: 'Test address' }), ' 198.51.100.7 ');
    await user.click(within(section).getByRole('button', { name: 'Test this knoc' }));
    expect(await within(section).findByRole('status')).toHaveTextContent('The device holds 198.51.100.7');
    expect(api.calls('POST /api/admin/knocs/:id/test')[0]?.body).toEqual({ IP: '198.51.100.7' });
  });

  it.each([
    [
      'a device that did not keep the address',
      { State: 'absent', Held: false, Detail: '' },
      'The device did not keep 203.0.113.9',
      /but reading the device back did not find it .*something on the device removes or overrides Postern’s entries/,
    ],
    [
      'a device that cannot be read back',
      {
        State: 'unreadable',
        Held: false,
        Detail: 'script backends cannot be read back: nothing on them can be listed',
      },
      'The device took 203.0.113.9',
      /the device could not be read back: script backends cannot be read back/,
    ],
    [
      'an agent older than read-back',
      { State: 'unreported', Held: false, Detail: '' },
      'The device took 203.0.113.9',
      /this agent’s version does not read the device back/,
    ],
  ] as const)('shows the read-back of %s', async (_name, readBack, title, text) => {
    const { user, section } = await openTest(
      data(KnocTestResponse, { ...PASSED, ReadBack: { ...PASSED.ReadBack, ...readBack } }),
    );
    await user.click(within(section).getByRole('button', { name: 'Test this knoc' }));
    const result = await within(section).findByRole('status');
    expect(within(result).getByText(title)).toBeVisible();
    expect(result).toHaveTextContent(text);
  });

  it('says when the removal is not confirmed yet, and when it lasts', async () => {
    const { user, section } = await openTest(data(KnocTestResponse, { ...PASSED, Revoked: false }));
    await user.click(within(section).getByRole('button', { name: 'Test this knoc' }));
    expect(await within(section).findByRole('status')).toHaveTextContent(
      /The removal was sent but not yet confirmed; the entry ends by itself at/,
    );
  });

  it.each([
    [
      'the device’s error when the apply fails',
      apiError(409, ErrorCodes.knocTestApplyFailed, 'ipset v7.17: The set does not exist'),
      'The device refused the test address; the test grant was ended: ipset v7.17: The set does not exist',
    ],
    ['that the agent is offline', apiError(409, ErrorCodes.agentOffline), 'The agent for this system is offline'],
    [
      'a refused address',
      apiError(400, ErrorCodes.ipAddressNotGrantable, 'IP'),
      'This address is never granted: loopback, link-local, multicast, broadcast and cloud metadata addresses are refused',
    ],
  ])('shows %s', async (_name, answer, message) => {
    const { user, section } = await openTest(answer);
    await user.click(within(section).getByRole('button', { name: 'Test this knoc' }));
    const alert = await within(section).findByRole('alert');
    expect(alert).toHaveTextContent('The test failed');
    expect(alert).toHaveTextContent(message);
  });

  it('offers no test on a knoc no agent enforces', async () => {
    const { section } = await openTest(apiError(409, ErrorCodes.knocTestNoDevice), 'Office allowlist');
    expect(section).toHaveTextContent('No agent enforces this knoc, so there is nothing to test.');
    expect(within(section).queryByRole('button', { name: 'Test this knoc' })).not.toBeInTheDocument();
  });

  it('speaks German', async () => {
    await i18n.changeLanguage('de');
    const { user, section } = await openTest(data(KnocTestResponse, PASSED));
    await user.click(within(section).getByRole('button', { name: 'Diesen Knoc testen' }));
    const result = await within(section).findByRole('status');
    expect(result).toHaveTextContent('Das Gerät hält 203.0.113.9');
    expect(result).toHaveTextContent('Wieder widerrufen; der Agent hat die Adresse vom Gerät genommen.');
  });
});
