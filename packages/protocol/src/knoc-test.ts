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
 * What reading the device back found after the agent applied the test entry: `held` (the device
 * holds the address, or lets it through by its own rules), `absent` (the write was accepted, yet the
 * device does not hold it: something on the device removed or overrode it), `unreadable` (this
 * device cannot be read: a script, a list the firewall fetches, a listing that failed; Detail says
 * which), `unreported` (the agent is older than read-back and only reported the write).
 */
export const KnocTestReadBackState = z.enum(['held', 'absent', 'unreadable', 'unreported']);
export type KnocTestReadBackState = z.infer<typeof KnocTestReadBackState>;

/** The agent's report on the test entry: its write, and what it read back from the device. */
export const KnocTestReadBack = z.object({
  State: KnocTestReadBackState,
  /** The read-back found the address on the device (State `held`). */
  Held: z.boolean(),
  /** Why the device could not be read (State `unreadable`); '' otherwise. */
  Detail: z.string(),
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
  /** The agent reported its write to the device succeeded. */
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
