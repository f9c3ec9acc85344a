import { describe, expect, it } from 'vitest';
import { canonicalJson, ClientCache } from './client-cache.js';

describe('ClientCache', () => {
  it('keeps one client per backend until its config changes, then closes the old one', () => {
    const cache = new ClientCache<{ id: number; closed: boolean; close(): void }>();
    let made = 0;
    const create = () => ({
      id: ++made,
      closed: false,
      close() {
        this.closed = true;
      },
    });
    const first = cache.get('b1', { Url: 'https://a', Insecure: false }, create);
    expect(cache.get('b1', { Insecure: false, Url: 'https://a' }, create)).toBe(first);
    const second = cache.get('b1', { Url: 'https://b', Insecure: false }, create);
    expect(second.id).toBe(2);
    expect(first.closed).toBe(true);
    cache.closeAll();
    expect(second.closed).toBe(true);
  });

  it('writes JSON with sorted keys', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: 3 } })).toBe(
      '{"a":{"c":3,"d":[2,{"e":0,"f":1}]},"b":1}',
    );
  });
});
