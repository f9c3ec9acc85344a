import { AuditActions, type AgentKeyProof, type AgentSealingKey } from '@postern/protocol';
import type { HubContext } from '../app-context.js';
import { recordAudit } from '../audit/audit.js';
import { agentKeyFingerprint, verifyAgentProof } from './agent-key.js';
import { SealingKeyRefusals, decideSealingKey } from './agent-sealing-key.js';
import { enrolAgentKey, findAgentCredentials, recordAdmittedConnection, type AgentHelloReport } from './agents.repo.js';

/**
 * Why a connection was refused. Each text is sent to the agent in its goodbye (and logged there)
 * and written to the audit log, so it tells the operator what to do.
 */
export const AgentRefusals = {
  noProof:
    'this agent did not prove a key: it is older than the server; update it by re-running the install command from the admin console',
  badProof: 'the agent key proof did not verify for this connection',
  keyMismatch:
    "this agent's key is not the one registered for its token: an admin must rotate the token and the agent be reinstalled with the new one",
  tokenChanged: 'the agent token was rotated or the agent deleted',
  timeout: 'no key proof arrived in time',
  ...SealingKeyRefusals,
} as const;
export type AgentRefusal = (typeof AgentRefusals)[keyof typeof AgentRefusals];

/** The connection being decided on. */
export interface AdmissionRequest {
  agentId: string;
  /** The hash of the token the upgrade presented. */
  tokenHash: string;
  /** This connection's challenge. */
  nonce: string;
  proof: AgentKeyProof | undefined;
  /** The sealing key the hello carries (none from an agent older than sealing). */
  sealingKey?: AgentSealingKey | undefined;
  connectionId: string;
  /** The agent's address, as the audit log shows it. */
  address: string;
  /** What the hello reports about the agent, recorded when it is admitted. */
  report: AgentHelloReport;
  /** How many generations to reserve for the connection's first messages. */
  generationBlock: number;
}

/**
 * Admitted (whether this connection enrolled the key, and the highest generation reserved for its
 * messages), or refused with the reason.
 */
export type AdmissionOutcome =
  | { admitted: true; enrolled: boolean; fingerprint: string; reservedGeneration: number }
  | { admitted: false; refusal: AgentRefusal; fingerprint: string | null };

/**
 * Decides whether a connection is the agent its token names. The proof must verify for this
 * connection's nonce; then, in one transaction, the token must still be the agent's, and the key
 * must be the registered one, or, when none is registered (never enrolled, or rotated since),
 * becomes it (audited as AgentEnrolled). An admitted connection is recorded as the agent's, with
 * its hello's report and its first block of generations, in one write, and audited as AgentConnected. The hello's sealing key is decided on in the same transaction (see
 * decideSealingKey). Refusals are not audited here: the caller throttles them.
 */
export async function admitAgentConnection(ctx: HubContext, request: AdmissionRequest): Promise<AdmissionOutcome> {
  const { proof } = request;
  if (proof === undefined) return { admitted: false, refusal: AgentRefusals.noProof, fingerprint: null };
  if (!verifyAgentProof(proof, request.nonce)) {
    return { admitted: false, refusal: AgentRefusals.badProof, fingerprint: null };
  }
  const fingerprint = agentKeyFingerprint(proof.publicKey);
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx): Promise<AdmissionOutcome> => {
    const agent = await findAgentCredentials(trx, request.agentId);
    if (agent === null || agent.tokenHash !== request.tokenHash) {
      return { admitted: false, refusal: AgentRefusals.tokenChanged, fingerprint };
    }
    let registered = agent.publicKey;
    let enrolled = false;
    if (registered === null) {
      enrolled = await enrolAgentKey(trx, agent.id, {
        tokenHash: request.tokenHash,
        publicKey: proof.publicKey,
        enrolledAt: now,
      });
      // The loser of a race is checked against the winner's key.
      registered = enrolled ? proof.publicKey : ((await findAgentCredentials(trx, agent.id))?.publicKey ?? null);
    }
    if (registered !== proof.publicKey) return { admitted: false, refusal: AgentRefusals.keyMismatch, fingerprint };
    const sealing = await decideSealingKey(ctx, trx, agent, proof.publicKey, request.sealingKey);
    if (!sealing.ok) return { admitted: false, refusal: sealing.refusal as AgentRefusal, fingerprint };
    // One entry for what this connection registered: the key, its sealing key, or both.
    const registrations = [
      ...(enrolled ? [`Key ${fingerprint}`] : []),
      ...(sealing.registered === null ? [] : [`${enrolled ? 'sealing' : 'Sealing'} key ${sealing.registered}`]),
    ];
    if (registrations.length > 0) {
      await recordAudit(trx, now, AuditActions.AgentEnrolled, {
        AgentName: agent.name,
        IpAddress: request.address,
        Description: registrations.join('; '),
      });
    }
    const reservedGeneration = await recordAdmittedConnection(
      trx,
      agent.id,
      { connectionId: request.connectionId, externalIp: request.address, lastSeen: now },
      request.report,
      request.generationBlock,
    );
    await recordAudit(trx, now, AuditActions.AgentConnected, { AgentName: agent.name, IpAddress: request.address });
    return { admitted: true, enrolled, fingerprint, reservedGeneration };
  });
}
