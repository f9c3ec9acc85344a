import { describe, expect, it } from 'vitest';
import { ErrorCodes, LOGO_MAX_BYTES } from '@postern/protocol';
import { logoFileProblem, logoMimeType, readAsDataUrl } from './logo-file';

describe('logoMimeType', () => {
  it.each([
    ['logo.png', 'image/png', 'image/png'],
    ['logo.jpg', 'image/jpeg', 'image/jpeg'],
    ['logo.JPEG', 'image/jpeg', 'image/jpeg'],
    ['logo.jpg', 'image/jpg', 'image/jpeg'],
    ['logo.png', '', 'image/png'],
    ['logo.jpeg', '', 'image/jpeg'],
    ['logo.gif', 'image/gif', null],
    ['logo.svg', 'image/svg+xml', null],
    ['logo.webp', '', null],
    ['logo', '', null],
    ['logo.png', 'image/jpeg', null],
  ])('%s typed "%s" is %s', (name, type, expected) => {
    expect(logoMimeType({ name, type })).toBe(expected);
  });
});

describe('logoFileProblem', () => {
  it('accepts a PNG up to the size limit', () => {
    expect(logoFileProblem({ name: 'a.png', type: 'image/png', size: LOGO_MAX_BYTES })).toBeNull();
  });

  it('refuses another format with the spec’s message key', () => {
    expect(logoFileProblem({ name: 'a.gif', type: 'image/gif', size: 10 })).toBe(ErrorCodes.logoFormat);
  });

  it('refuses a file over the size limit', () => {
    expect(logoFileProblem({ name: 'a.jpg', type: 'image/jpeg', size: LOGO_MAX_BYTES + 1 })).toBe(
      ErrorCodes.logoTooLarge,
    );
  });
});

describe('readAsDataUrl', () => {
  it('labels the data with the checked image type', async () => {
    const file = new File([new Uint8Array([1, 2, 3])], 'a.jpg', { type: 'image/jpg' });
    await expect(readAsDataUrl(file, 'image/jpeg')).resolves.toBe('data:image/jpeg;base64,AQID');
  });
});
