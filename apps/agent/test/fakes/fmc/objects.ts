import { MAX_BULK, validValue, type Reply, type Serial } from './reply.js';

/** A Host or Network object. */
export interface AddressObject {
  id: string;
  name: string;
  type: 'Host' | 'Network';
  value: string;
}

/** How a network group refers to an object. */
export interface ObjectRef {
  id: string;
  type: string;
  name: string;
}

const OBJECT_NAME = /^[A-Za-z0-9_.+-]{1,64}$/;

/**
 * The FMC fake's objects: dynamic objects with their mappings (FMC ≥ 7.0, no deployment) and Host and
 * Network objects; and the values a test makes it refuse.
 */
export class FmcObjects {
  /** Values a mappings, group or object write is refused for (400). */
  readonly refused = new Set<string>();
  readonly #dynamic = new Map<string, { name: string; mappings: string[] }>();
  readonly #objects = new Map<string, AddressObject>();

  constructor(private readonly serial: Serial) {}

  addDynamicObject(id: string, name: string, mappings: readonly string[]): void {
    this.#dynamic.set(id, { name, mappings: [...mappings] });
  }

  /** A dynamic object's mappings as stored, or null when there is none. */
  mappings(id: string): string[] | null {
    const object = this.#dynamic.get(id);
    return object === undefined ? null : [...object.mappings];
  }

  addAddressObject(name: string, type: 'Host' | 'Network', value: string): string {
    const id = `obj-${this.serial.next()}`;
    this.#objects.set(id, { id, name, type, value });
    return id;
  }

  has(id: string): boolean {
    return this.#objects.has(id);
  }

  get(id: string): AddressObject | undefined {
    return this.#objects.get(id);
  }

  /** Every Host and Network object (copies). */
  all(): AddressObject[] {
    return [...this.#objects.values()].map((object) => ({ ...object }));
  }

  /** The reference a network group holds to an object; throws for an unknown id (a test's mistake). */
  ref(objectId: string): ObjectRef {
    const object = this.#objects.get(objectId);
    if (object === undefined) throw new Error(`the FMC fake has no object ${objectId}`);
    return { id: object.id, type: object.type, name: object.name };
  }

  /** A value FMC would accept in a write, and the test has not made it refuse. */
  accepts(value: string): boolean {
    return !this.refused.has(value) && validValue(value);
  }

  /** `GET …/object/dynamicobjects/{id}[/mappings]`. */
  dynamicObject(method: string, id: string, more: string[], url: URL, { answer, error }: Reply): void {
    const object = this.#dynamic.get(id);
    if (object === undefined) error(404, `Dynamic object ${id} not found`);
    else if (more.length === 0 && method === 'GET')
      answer(200, { id, name: object.name, type: 'DynamicObject', objectType: 'IP' });
    else if (more[0] === 'mappings' && method === 'GET') this.#listMappings(url, object.mappings, { answer, error });
    else error(405, 'Method not allowed');
  }

  #listMappings(url: URL, mappings: readonly string[], { answer, error }: Reply): void {
    const offset = Number(url.searchParams.get('offset') ?? '0');
    const limit = Number(url.searchParams.get('limit') ?? '25');
    if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(limit) || limit < 1 || limit > MAX_BULK) {
      error(400, 'Invalid offset or limit');
      return;
    }
    const items = mappings.slice(offset, offset + limit).map((mapping) => ({ mapping }));
    answer(200, {
      items,
      paging: { offset, limit, count: mappings.length, pages: Math.ceil(mappings.length / limit) },
    });
  }

  /** `POST …/object/dynamicobjectmappings` with `{add:[…], remove:[…]}`: refused whole or done whole. */
  changeMappings(payload: unknown, { answer, error }: Reply): void {
    const request = payload as { add?: unknown; remove?: unknown } | null;
    const changes: { op: 'add' | 'remove'; id: string; values: string[] }[] = [];
    for (const op of ['add', 'remove'] as const) {
      const list = request?.[op];
      if (list === undefined) continue;
      if (!Array.isArray(list)) {
        error(400, `${op} must be a list`);
        return;
      }
      for (const item of list as { dynamicObject?: { id?: unknown }; mappings?: unknown }[]) {
        const id = item.dynamicObject?.id;
        const values = item.mappings;
        if (typeof id !== 'string' || !Array.isArray(values) || !values.every((v) => typeof v === 'string')) {
          error(400, 'Each entry needs dynamicObject.id and mappings');
          return;
        }
        if (!this.#dynamic.has(id)) {
          error(400, `Invalid dynamic object ID ${id}`);
          return;
        }
        changes.push({ op, id, values: values });
      }
    }
    const total = changes.reduce((sum, change) => sum + change.values.length, 0);
    if (changes.length === 0 || total > MAX_BULK) {
      error(400, total > MAX_BULK ? `At most ${MAX_BULK} mappings per request` : 'Nothing to add or remove');
      return;
    }
    const bad = changes.flatMap((c) => c.values).find((value) => !this.accepts(value));
    if (bad !== undefined) {
      error(400, `Invalid IP address or network: ${bad}`);
      return;
    }
    for (const change of changes) {
      const object = this.#dynamic.get(change.id);
      if (object === undefined) continue;
      for (const value of change.values) {
        const index = object.mappings.indexOf(value);
        if (change.op === 'add' && index < 0) object.mappings.push(value);
        if (change.op === 'remove' && index >= 0) object.mappings.splice(index, 1);
      }
    }
    answer(201, payload);
  }

  /** `GET`/`POST …/object/hosts|networks[/{id}]`: read one, list (filtered, paged) or create. */
  addressObjects(
    method: string,
    type: 'Host' | 'Network',
    id: string | undefined,
    url: URL,
    payload: unknown,
    { answer, error }: Reply,
  ): void {
    if (method === 'GET' && id !== undefined) {
      const object = this.#objects.get(id);
      if (object === undefined || object.type !== type) error(404, `${type} object ${id} not found`);
      else answer(200, { ...object, links: { self: `fake/${id}` } });
      return;
    }
    if (method === 'GET') {
      const filter = /^nameOrValue:(.*)$/.exec(url.searchParams.get('filter') ?? '')?.[1]?.toLowerCase() ?? null;
      const all = [...this.#objects.values()].filter(
        (o) =>
          o.type === type &&
          (filter === null || o.name.toLowerCase().includes(filter) || o.value.toLowerCase().includes(filter)),
      );
      const offset = Number(url.searchParams.get('offset') ?? '0');
      const limit = Number(url.searchParams.get('limit') ?? '25');
      const expanded = url.searchParams.get('expanded') === 'true';
      const items = all
        .slice(offset, offset + limit)
        .map((o) => (expanded ? { ...o } : { id: o.id, name: o.name, type: o.type }));
      answer(200, { items, paging: { offset, limit, count: all.length, pages: Math.ceil(all.length / limit) } });
      return;
    }
    if (method !== 'POST' || id !== undefined) {
      error(405, 'Method not allowed');
      return;
    }
    const body = payload as { name?: unknown; type?: unknown; value?: unknown } | null;
    const { name, value } = body ?? {};
    if (typeof name !== 'string' || !OBJECT_NAME.test(name) || typeof value !== 'string') {
      error(400, 'An object needs a name of at most 64 letters, digits or _ . + - and a value');
      return;
    }
    if (body?.type !== type || !this.accepts(value) || value.includes('/') !== (type === 'Network')) {
      error(400, `Input type mismatch. You have entered an invalid value ${value} for selected type ${type}.`);
      return;
    }
    if ([...this.#objects.values()].some((o) => o.name === name)) {
      error(400, `Duplicate Name: an object named ${name} already exists`);
      return;
    }
    const created = { id: `obj-${this.serial.next()}`, name, type, value };
    this.#objects.set(created.id, created);
    answer(201, { ...created, links: { self: `fake/${created.id}` } });
  }
}
