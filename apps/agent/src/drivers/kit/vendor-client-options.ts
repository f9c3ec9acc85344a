import type { Logger } from 'pino';
import type { RetryPolicy } from '../http/retry.js';

/**
 * What a vendor API client reached by a backend's Hostname is built with; each client adds its
 * credentials and its own settings.
 */
export interface VendorClientOptions {
  /**
   * The backend's Hostname: `host` or `host:port` (a name or an address). The API is always https;
   * without a port the vendor's API port is meant (443 unless the client's options say otherwise).
   */
  hostname: string;
  /** Accept any certificate (the backend's Insecure); otherwise it must verify. */
  insecure: boolean;
  logger: Logger;
  /** One HTTP try taking longer than this is given up (default: the HTTP client's). */
  timeoutMs?: number;
  /** Tests shorten the back-off. */
  retry?: Partial<RetryPolicy>;
}
