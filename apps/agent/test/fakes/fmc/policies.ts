import type { FmcDeployment } from './deployment.js';
import type { FmcObjects, ObjectRef } from './objects.js';
import type { Reply } from './reply.js';

interface NetworkGroup {
  id: string;
  name: string;
  type: 'NetworkGroup';
  literals: { type: string; value: string }[];
  objects: ObjectRef[];
  description?: string;
  overridable?: boolean;
}

/** What a network group PUT may carry; anything else (links, metadata) is read-only. */
const WRITABLE_GROUP_FIELDS = new Set(['id', 'name', 'type', 'literals', 'objects', 'description', 'overridable']);

/**
 * The FMC fake's network groups (legacy, need a deploy) and which group each device's access policy
 * uses: a group change is one pending change by the API user on each device using the group.
 */
export class FmcPolicies {
  readonly #groups = new Map<string, NetworkGroup>();
  /** Which network group each device's policy uses. */
  readonly #devices = new Map<string, string>();

  constructor(
    private readonly objects: FmcObjects,
    private readonly deployment: FmcDeployment,
    private readonly apiUser: string,
    private readonly domainUuid: string,
    private readonly now: () => number,
  ) {}

  addNetworkGroup(
    id: string,
    name: string,
    values: readonly string[],
    devices: readonly string[],
    objectIds: readonly string[],
  ): void {
    this.#groups.set(id, {
      id,
      name,
      type: 'NetworkGroup',
      literals: values.map((value) => ({ type: value.includes('/') ? 'Network' : 'Host', value })),
      objects: objectIds.map((objectId) => this.objects.ref(objectId)),
      description: `${name} (fake)`,
    });
    for (const device of devices) this.#devices.set(device, id);
  }

  addToGroup(groupId: string, objectId: string): void {
    this.#groups.get(groupId)?.objects.push(this.objects.ref(objectId));
  }

  groupValues(id: string): string[] | null {
    return this.#groups.get(id)?.literals.map((literal) => literal.value) ?? null;
  }

  groupObjects(id: string): { name: string; value: string }[] | null {
    const group = this.#groups.get(id);
    if (group === undefined) return null;
    return group.objects.map((ref) => {
      const object = this.objects.get(ref.id);
      return { name: object?.name ?? ref.id, value: object?.value ?? '' };
    });
  }

  /** `GET`/`PUT …/object/networkgroups/{id}`: the PUT replaces the whole group (read-modify-write). */
  networkGroup(method: string, id: string, payload: unknown, { answer, error }: Reply): void {
    const group = this.#groups.get(id);
    if (group === undefined) {
      error(404, `Network group ${id} not found`);
      return;
    }
    if (method === 'GET') {
      answer(200, {
        ...group,
        literals: group.literals.map((l) => ({ ...l })),
        objects: group.objects.map((o) => ({ ...o })),
        links: { self: `https://fmc.fake/api/fmc_config/v1/domain/${this.domainUuid}/object/networkgroups/${id}` },
        metadata: { readOnly: { state: false }, lastUser: { name: 'admin' }, timestamp: this.now() },
      });
      return;
    }
    if (method !== 'PUT') {
      error(405, 'Method not allowed');
      return;
    }
    const next = payload as (Partial<NetworkGroup> & Record<string, unknown>) | null;
    const readOnly = Object.keys(next ?? {}).filter((key) => !WRITABLE_GROUP_FIELDS.has(key));
    if (readOnly.length > 0) {
      error(400, `Invalid field(s) in the request: ${readOnly.join(', ')}`);
      return;
    }
    if (next?.id !== id || typeof next.name !== 'string' || !Array.isArray(next.literals)) {
      error(400, 'A network group needs id, name and literals');
      return;
    }
    const literals = next.literals;
    const bad = literals.find((l) => typeof l.value !== 'string' || !this.objects.accepts(l.value));
    if (bad !== undefined) {
      error(400, `Invalid IP address or network: ${String(bad.value)}`);
      return;
    }
    const refs = next.objects ?? [];
    const unknown = refs.find((ref) => typeof ref.id !== 'string' || !this.objects.has(ref.id));
    if (unknown !== undefined) {
      error(400, `Invalid object ID ${String(unknown.id)}`);
      return;
    }
    if (literals.length + refs.length === 0) {
      error(400, 'A network group must have at least one object or literal');
      return;
    }
    group.name = next.name;
    group.literals = literals.map((l) => ({ type: l.type, value: l.value }));
    group.objects = refs.map((ref) => this.objects.ref(ref.id));
    if (typeof next.description === 'string') group.description = next.description;
    for (const [device, groupId] of this.#devices) {
      if (groupId === id) this.deployment.addPendingChange(device, this.apiUser);
    }
    answer(200, group);
  }
}
