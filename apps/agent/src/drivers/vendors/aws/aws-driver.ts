import type { AgentKnocOf } from '@postern/protocol';
import { parseAddress } from '../../addresses.js';
import type { BatchItem, EntryBatch } from '../../kit/entry-batch.js';
import { clientTuning, VendorDriver, type VendorDriverOptions, type VendorTarget } from '../../kit/vendor-driver.js';
import { AwsClient, describeFailure, type Ec2Answer, type Ec2Permission } from './aws-client.js';
import { CredentialChain, DEFAULT_IMDS_ENDPOINT } from './aws-credentials.js';
import type { Ec2Rule } from './aws-responses.js';
import { AUTH_CODES, THROTTLING_CODES } from './aws-responses.js';

export interface AwsDriverOptions extends VendorDriverOptions {
  /** The agent's aws.endpoint: null or '' for https://ec2.<Region>.amazonaws.com. */
  endpoint?: string | null;
  /** Where the credential chain reads the environment (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** The instance metadata service; only tests change it. */
  imdsEndpoint?: string;
}

/** Every rule Postern writes has a description starting so; `list` and `flush` see no other rule. */
export const AWS_RULE_MARKER = 'postern:';

/** Rules per Authorize call: well below any request size limit, and a group holds 60 by default. */
const BATCH = 50;

/** The key is one writer at a time per backend and security group. */
interface AwsTarget extends VendorTarget<AwsClient> {
  groupId: string;
  port: number;
}

/**
 * AWS EC2 security groups (VENDORS.md 1.7): one inbound tcp rule per granted address on the knoc's
 * Port (default 22) in its SecurityGroupId, IPv4 (`/32`) and IPv6 (`/128`) alike, each described
 * `postern: <user>` so only Postern's own rules are listed or removed.
 *
 * An address an admin's own rule already opens on the port counts as held: apply writes nothing for
 * it, remove never revokes a rule without the marker, and `coveredByOthers` tells drift repair.
 *
 * apply = read the group's rules, authorise the missing ones in one call (a race's
 * InvalidPermission.Duplicate is success; when a batch fails for one entry, e.g. the group's rule
 * quota, RulesPerSecurityGroupLimitExceeded, the batch is tried entry by entry so each gets its own
 * outcome), then read the group back: an entry is ok only when its rule is there. remove = revoke
 * Postern's rules for the addresses by rule id in one call (absent, or InvalidPermission.NotFound, is
 * success), then read back. Writes to one group run one at a time.
 */
export class AwsDriver extends VendorDriver<'aws', AwsClient, AwsTarget, AwsDriverOptions> {
  readonly type = 'aws' as const;
  readonly #chain: CredentialChain;

  constructor(options: AwsDriverOptions) {
    super(options);
    this.#chain = new CredentialChain({
      env: options.env ?? process.env,
      imdsEndpoint: options.imdsEndpoint ?? DEFAULT_IMDS_ENDPOINT,
      imdsTimeoutMs: 2_000,
    });
  }

  protected async add(target: AwsTarget, batch: EntryBatch): Promise<void> {
    const held = heldCidrs(await target.client.ingressRules(target.groupId), target.port, false);
    // One permission per address: the same CIDR twice in one call is InvalidParameterValue.
    const missing = new Map<string, Missing>();
    for (const item of batch.items) {
      const { canonical } = item.address;
      if (held.has(canonical)) continue;
      const known = missing.get(canonical);
      if (known !== undefined) known.items.push(item);
      else
        missing.set(canonical, {
          permission: {
            cidr: item.address.cidr,
            family: item.address.family,
            description: ruleDescription(item.entry.userName),
          },
          items: [item],
        });
    }
    const rules = [...missing.values()];
    for (let start = 0; start < rules.length; start += BATCH) {
      await this.#authorize(target, rules.slice(start, start + BATCH), batch);
    }
    if (missing.size === 0) return;
    const after = heldCidrs(await target.client.ingressRules(target.groupId), target.port, false);
    for (const [canonical, { items }] of missing) {
      if (!after.has(canonical))
        batch.failPending(
          items,
          `aws: the rule for ${canonical} (tcp ${target.port}) was added to security group ${target.groupId} but is not there when read back`,
        );
    }
  }

  protected async delete(target: AwsTarget, batch: EntryBatch): Promise<void> {
    const rules = ownRules(await target.client.ingressRules(target.groupId), target.port);
    const wanted = new Set(batch.items.map((item) => item.address.canonical));
    const ids = rules.filter((rule) => wanted.has(rule.canonical)).map((rule) => rule.id);
    const failRule = (id: string, answer: Extract<Ec2Answer, { ok: false }>) => {
      const canonical = rules.find((rule) => rule.id === id)?.canonical;
      batch.fail(
        batch.items.filter((item) => item.address.canonical === canonical),
        describeFailure(`revoke rule ${id} from security group ${target.groupId}`, answer),
      );
    };
    for (let start = 0; start < ids.length; start += BATCH) {
      const chunk = ids.slice(start, start + BATCH);
      const answer = await target.client.revoke(target.groupId, chunk);
      if (answer.ok || (chunk.length === 1 && isNotFound(answer))) continue;
      if (chunk.length > 1 && !wholeCallFailure(answer)) {
        // EC2 revokes all or nothing: one rule gone meanwhile (NotFound) or refused holds the
        // others, so revoke them one by one.
        for (const id of chunk) {
          const single = await target.client.revoke(target.groupId, [id]);
          if (!single.ok && !isNotFound(single)) failRule(id, single);
        }
      } else {
        for (const id of chunk) failRule(id, answer);
      }
    }
    if (ids.length === 0) return;
    const after = new Set(
      ownRules(await target.client.ingressRules(target.groupId), target.port).map((rule) => rule.canonical),
    );
    for (const item of batch.pending()) {
      if (after.has(item.address.canonical))
        batch.fail(
          [item],
          `aws: the rule for ${item.address.canonical} (tcp ${target.port}) is still in security group ${target.groupId} after it was revoked`,
        );
    }
  }

  protected async held(target: AwsTarget): Promise<string[]> {
    return [
      ...new Set(ownRules(await target.client.ingressRules(target.groupId), target.port).map((rule) => rule.canonical)),
    ];
  }

  /**
   * The addresses a rule without Postern's marker already opens on the knoc's port (an admin's rule
   * for the same address): apply takes them as held and writes nothing (EC2 would refuse the
   * duplicate), remove leaves them, and drift repair counts them as held rather than re-adding them
   * on every check.
   */
  async coveredByOthers(knoc: AgentKnocOf<'aws'>): Promise<string[]> {
    const target = this.resolve(knoc);
    return this.queued(target, async () => {
      const rules = await target.client.ingressRules(target.groupId);
      const own = heldCidrs(rules, target.port, true);
      return [...heldCidrs(rules, target.port, false)].filter((address) => !own.has(address));
    });
  }

  /** One batch; on an error that may concern one entry, each entry alone. */
  async #authorize(target: AwsTarget, rules: readonly Missing[], batch: EntryBatch): Promise<void> {
    const answer = await target.client.authorize(
      target.groupId,
      target.port,
      rules.map((rule) => rule.permission),
    );
    if (answer.ok || answer.error.code === 'InvalidPermission.Duplicate') {
      // A Duplicate for a batch means at least one rule was there already and none was added:
      // a rule another writer added between the read and this call. Try the rest alone.
      if (answer.ok || rules.length === 1) return;
    }
    if (!answer.ok && (rules.length === 1 || wholeCallFailure(answer))) {
      const message = describeFailure(`add the rule to security group ${target.groupId}`, answer);
      batch.fail(
        rules.flatMap((rule) => rule.items),
        message,
      );
      return;
    }
    for (const rule of rules) await this.#authorize(target, [rule], batch);
  }

  protected target(knoc: AgentKnocOf<'aws'>): AwsTarget {
    const { AccessKeyId, SecretAccessKey, Region } = knoc.backend;
    const region = (Region ?? '').trim();
    const groupId = (knoc.acl.SecurityGroupId ?? '').trim();
    const port = Number(knoc.acl.Port ?? 22);
    if (!/^[a-z]{2}(-[a-z]+)+-\d+$/.test(region))
      throw new Error(`aws: the backend Region "${region}" is not an AWS region`);
    if (!/^sg-[0-9a-f]{8,17}$/.test(groupId))
      throw new Error(`aws: knoc ${knoc.aclId} names no security group id (SecurityGroupId, sg-…)`);
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new Error(`aws: knoc ${knoc.aclId} has no valid Port`);
    const keyId = (AccessKeyId ?? '').trim();
    const secret = SecretAccessKey ?? '';
    if ((keyId === '') !== (secret === ''))
      throw new Error('aws: the backend needs both AccessKeyId and SecretAccessKey, or neither (the host credentials)');
    const endpoint = this.options.endpoint ?? '';
    const client = this.clients.get(
      knoc.backendId,
      { ...knoc.backend, endpoint },
      () =>
        new AwsClient({
          region,
          endpoint,
          credentials: keyId === '' ? null : { accessKeyId: keyId, secretAccessKey: secret },
          chain: this.#chain,
          logger: this.logger,
          ...clientTuning(this.options),
        }),
    );
    return { client, groupId, port, key: JSON.stringify([knoc.backendId, groupId]) };
  }
}

/** One rule to authorise, and the entries (one address, maybe given twice) it grants. */
interface Missing {
  permission: Ec2Permission;
  items: BatchItem[];
}

/** Absent already: a permission (non-default VPC) or a rule id another writer revoked. */
function isNotFound(answer: Extract<Ec2Answer, { ok: false }>): boolean {
  return (
    answer.error.code === 'InvalidPermission.NotFound' || answer.error.code === 'InvalidSecurityGroupRuleId.NotFound'
  );
}

interface OwnRule {
  id: string;
  canonical: string;
}

/** A failure no single entry caused: credentials, permissions, throttling, a missing group. */
function wholeCallFailure(answer: Extract<Ec2Answer, { ok: false }>): boolean {
  const { code } = answer.error;
  return (
    AUTH_CODES.has(code) || THROTTLING_CODES.has(code) || code.startsWith('InvalidGroup') || code.startsWith('HTTP')
  );
}

/** The canonical addresses with a tcp rule on `port` (Postern's own only when `ownOnly`). */
function heldCidrs(rules: readonly Ec2Rule[], port: number, ownOnly: boolean): Set<string> {
  const held = new Set<string>();
  for (const rule of rules) {
    if (rule.protocol !== 'tcp' || rule.fromPort !== port || rule.toPort !== port || rule.cidr === '') continue;
    if (ownOnly && !rule.description.startsWith(AWS_RULE_MARKER)) continue;
    const address = parseAddress(rule.cidr);
    if (address !== null) held.add(address.canonical);
  }
  return held;
}

/** Postern's rules on `port`, with their canonical address. */
function ownRules(rules: readonly Ec2Rule[], port: number): OwnRule[] {
  return rules.flatMap((rule) => {
    if (rule.protocol !== 'tcp' || rule.fromPort !== port || rule.toPort !== port) return [];
    if (!rule.description.startsWith(AWS_RULE_MARKER)) return [];
    const address = parseAddress(rule.cidr);
    return address === null ? [] : [{ id: rule.id, canonical: address.canonical }];
  });
}

/** `postern: <user>`, in the characters EC2 allows in a description (a-zA-Z0-9. _-:/()#,@[]+=&;{}!$*), ≤ 255. */
export function ruleDescription(userName: string): string {
  const user = userName.replace(/[^a-zA-Z0-9. _\-:/()#,@[\]+=&;{}!$*]/g, '_').slice(0, 200);
  return user === '' ? AWS_RULE_MARKER : `${AWS_RULE_MARKER} ${user}`;
}
