import { describe, expect, it } from 'vitest';
import { displayAddress } from './agent-address';

describe('displayAddress (spec: a trailing port is stripped for display)', () => {
  it.each([
    ['203.0.113.5:4711', '203.0.113.5'],
    ['203.0.113.5', '203.0.113.5'],
    ['[2001:db8::1]:4711', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['2001:db8::1', '2001:db8::1'],
    [' 198.51.100.7:80 ', '198.51.100.7'],
  ])('shows %s as %s', (address, shown) => {
    expect(displayAddress(address)).toBe(shown);
  });

  it('shows nothing for an agent that never connected', () => {
    expect(displayAddress(null)).toBeNull();
    expect(displayAddress('  ')).toBeNull();
  });
});
