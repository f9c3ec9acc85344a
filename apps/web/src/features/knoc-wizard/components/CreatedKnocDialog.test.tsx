import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderUi } from '@/test-support/render-ui';
import { stubClipboard } from '@/test-support/clipboard';
import { CreatedKnocDialog, hasCreatedSecrets } from './CreatedKnocDialog';

const KEY = 'pst_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const URL = 'https://postern.example.net/api/v1/allowlists/acl-1/tok.txt';

describe('created knoc dialog', () => {
  it('shows the new key and the allowlist URL in plain text, copies each and closes by its button', async () => {
    const onClose = vi.fn();
    const { user } = renderUi(
      <CreatedKnocDialog
        created={{ ApiKey: { Name: 'pan key', PlaintextKey: KEY }, AllowlistURL: URL }}
        onClose={onClose}
      />,
    );
    const dialog = await screen.findByRole('dialog', { name: 'Knoc created' });
    expect(dialog).toHaveTextContent(KEY);
    expect(dialog).toHaveTextContent(URL);
    const writeText = stubClipboard();
    await user.click(screen.getByRole('button', { name: 'Copy API key' }));
    await user.click(screen.getByRole('button', { name: 'Copy Allowlist URL' }));
    expect(writeText.mock.calls).toEqual([[KEY], [URL]]);
    await user.click(screen.getAllByRole('button', { name: 'Close' }).at(-1)!);
    expect(onClose).toHaveBeenCalled();
  });

  it('completes a path (no public URL configured) with the console’s own origin', async () => {
    const path = '/api/v1/allowlists/acl-1/tok.txt';
    renderUi(<CreatedKnocDialog created={{ ApiKey: null, AllowlistURL: path }} onClose={() => undefined} />);
    const dialog = await screen.findByRole('dialog', { name: 'Knoc created' });
    expect(dialog).toHaveTextContent(`${window.location.origin}${path}`);
  });

  it('shows only the URL when no key was created', async () => {
    renderUi(<CreatedKnocDialog created={{ ApiKey: null, AllowlistURL: URL }} onClose={() => undefined} />);
    const dialog = await screen.findByRole('dialog', { name: 'Knoc created' });
    expect(dialog).toHaveTextContent(URL);
    expect(screen.queryByRole('button', { name: 'Copy API key' })).toBeNull();
  });

  it.each([
    [{ ApiKey: null, AllowlistURL: null }, false],
    [{ ApiKey: null, AllowlistURL: URL }, true],
    [{ ApiKey: { Name: 'k', PlaintextKey: KEY }, AllowlistURL: null }, true],
  ])('stays on the wizard to show %j: %s', (created, expected) => {
    expect(hasCreatedSecrets(created)).toBe(expected);
  });
});
