import { DEVICE_TIMEOUT_MAX_SECONDS, DEVICE_TIMEOUT_MIN_SECONDS } from '@postern/protocol';

/**
 * The timeout written on a device entry for `ttlSeconds` left. Never 0 (ipset reads it as "forever")
 * and never above the kernel's limit; fractions round down so the device never outlives the grant.
 */
export function clampDeviceTimeout(ttlSeconds: number): number {
  if (!Number.isFinite(ttlSeconds)) {
    return ttlSeconds > 0 ? DEVICE_TIMEOUT_MAX_SECONDS : DEVICE_TIMEOUT_MIN_SECONDS;
  }
  return Math.min(DEVICE_TIMEOUT_MAX_SECONDS, Math.max(DEVICE_TIMEOUT_MIN_SECONDS, Math.floor(ttlSeconds)));
}
