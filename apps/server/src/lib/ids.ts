import { randomFillSync } from 'node:crypto';

let lastMs = -1;
let sequence = 0;

/**
 * Random bytes taken 16 at a time from a pool filled 4 KiB at once: one call into OpenSSL per 256
 * ids instead of one each (an agent reconnect storm makes several ids per connection).
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

function sixteenRandomBytes(): Buffer {
  if (poolOffset === POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = Buffer.from(pool.subarray(poolOffset, poolOffset + 16));
  poolOffset += 16;
  return bytes;
}

/**
 * A UUID version 7 (RFC 9562): 48 bits of epoch milliseconds, a 12-bit sequence, then randomness.
 * Ids made by this process sort in creation order, even within one millisecond (the sequence counts
 * up, per the RFC's "fixed bit-length dedicated counter" method), so ordering by id is ordering by
 * time in both stores without a database sequence.
 */
export function uuidv7(nowMs: number = Date.now()): string {
  let ms = nowMs;
  if (ms <= lastMs) {
    ms = lastMs;
    sequence += 1;
    if (sequence > 0xfff) {
      ms += 1;
      sequence = 0;
    }
  } else {
    sequence = 0;
  }
  lastMs = ms;
  const bytes = sixteenRandomBytes();
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
