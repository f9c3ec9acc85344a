import { z } from 'zod';
import { Id } from './common.js';
import { dataEnvelope } from './envelope.js';

/**
 * How long the test grant of "Test this knoc" lasts: an ordinary grant that ends by itself after a
 * minute, revoked early once the agent has reported. Should the server stop mid-test, the sweeper and
 * the agent's own entry timer still end it on time.
 */
export const KNOC_TEST_GRANT_MINUTES = 1;
/** How long the server waits for the agent's report on the apply, and again on the removal. */
export const KNOC_TEST_ANSWER_TIMEOUT_MS = 15_000;

/** POST /api/admin/knocs/{id}/test: the address to open for a minute. */
export const KnocTestBody = z.object({
  /** One IPv4 or IPv6 address; empty or absent: the address the server sees the admin's request come from. */
  IP: z.string().trim().max(64).default(''),
});
export type KnocTestBody = z.infer<typeof KnocTestBody>;

/**
 * What the agent reported about the test entry after the apply: the device took the address (the
 * agent's driver wrote it and answered ok) when the agent confirmed it.
 */
export const KnocTestReadBack = z.object({
  /** The agent reports the device holds the address. */
  Held: z.boolean(),
  /** The agent that reported, by name. */
  AgentName: z.string(),
  /** When the agent's report was recorded (ISO, the server's clock). */
  ReportedAt: z.string(),
});
export type KnocTestReadBack = z.infer<typeof KnocTestReadBack>;

/** The closed loop's outcome: the grant made, the agent's report on the device, and the early revoke. */
export const KnocTestResult = z.object({
  /** The test grant (origin admin); it ends by itself at ExpiresAt whatever happens. */
  GrantID: Id,
  /** The address opened, in canonical spelling. */
  IP: z.string(),
  ExpiresAt: z.string(),
  /** The agent confirmed the entry on the device. */
  Applied: z.boolean(),
  ReadBack: KnocTestReadBack,
  /**
   * The agent confirmed the entry is gone again (or it stays because another grant holds the same
   * address). False: the removal was sent but not confirmed in time; the entry still ends at ExpiresAt.
   */
  Revoked: z.boolean(),
  /** What the device said when the removal failed; '' otherwise. */
  RevokeError: z.string(),
});
export type KnocTestResult = z.infer<typeof KnocTestResult>;
export const KnocTestResponse = dataEnvelope(KnocTestResult);
