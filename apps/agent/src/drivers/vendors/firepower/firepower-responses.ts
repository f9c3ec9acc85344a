import { z } from 'zod';
import type { VendorAnswer, VendorRules } from '../../kit/vendor-outcome.js';

/**
 * The Cisco FMC REST answers the driver reads (VENDORS.md 1.4). Unknown fields are kept: FMC
 * versions add fields, and the driver reads only these.
 */

/** FMC's error body: `{error:{category, messages:[{description}], severity}}`. */
const FmcError = z.looseObject({
  error: z.looseObject({ messages: z.array(z.looseObject({ description: z.string().optional() })).default([]) }),
});

/** `GET …/object/dynamicobjects/{id}` and `…/networkgroups/{id}`: enough to tell which one a UUID is. */
export const FmcObject = z.looseObject({ id: z.string(), type: z.string(), name: z.string().optional() });

/** One mapping row: FMC answers `{mapping}`; a plain string (seen in scripts) is accepted too. */
const MappingRow = z.union([
  z.string(),
  z.looseObject({ mapping: z.string() }).transform((row) => row.mapping),
  z.looseObject({ value: z.string() }).transform((row) => row.value),
]);

/** `GET …/dynamicobjects/{id}/mappings?offset&limit`: one page and the total. */
export const FmcMappingsPage = z.looseObject({
  items: z.array(MappingRow).default([]),
  paging: z.looseObject({ count: z.number().int().nonnegative().optional() }).optional(),
});

const Literal = z.looseObject({ type: z.string(), value: z.string() });
/** A group member object as FMC lists it: a reference (its name and type are informative). */
const ObjectRef = z.looseObject({ id: z.string(), type: z.string().optional(), name: z.string().optional() });

/**
 * `GET …/networkgroups/{id}`: the whole object as FMC answers it, read-only parts (`links`,
 * `metadata`) included; {@link writableNetworkGroup} picks what a PUT may send back.
 */
export const FmcNetworkGroup = z.looseObject({
  id: z.string(),
  name: z.string(),
  type: z.literal('NetworkGroup'),
  literals: z.array(Literal).default([]),
  objects: z.array(ObjectRef).default([]),
  description: z.string().optional(),
  overridable: z.boolean().optional(),
});
export type FmcNetworkGroup = z.output<typeof FmcNetworkGroup>;
export type FmcObjectRef = z.output<typeof ObjectRef>;

/** What a network group PUT sends: only the writable fields (fireREST strips `links` and `metadata`). */
export interface FmcNetworkGroupWrite {
  id: string;
  name: string;
  type: 'NetworkGroup';
  literals: { type: string; value: string }[];
  objects: { type: string; id: string }[];
  description?: string;
  overridable?: boolean;
}

/** The group as a PUT may send it: never `links`, `metadata` or any other field FMC fills in itself. */
export function writableNetworkGroup(group: FmcNetworkGroup): FmcNetworkGroupWrite {
  return {
    id: group.id,
    name: group.name,
    type: 'NetworkGroup',
    literals: group.literals.map((literal) => ({ type: literal.type, value: literal.value })),
    objects: group.objects.map((ref) => ({ type: ref.type ?? 'Host', id: ref.id })),
    ...(group.description === undefined ? {} : { description: group.description }),
    ...(group.overridable === undefined ? {} : { overridable: group.overridable }),
  };
}

/** A Host or Network object (`GET …/object/hosts|networks?expanded=true`, or one by id). */
export const FmcAddressObject = z.looseObject({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  value: z.string(),
});
export type FmcAddressObject = z.output<typeof FmcAddressObject>;

/** One page of host or network objects. */
export const FmcAddressObjectPage = z.looseObject({
  items: z.array(FmcAddressObject).default([]),
  paging: z.looseObject({ count: z.number().int().nonnegative().optional() }).optional(),
});

/** `GET …/deployment/deployabledevices?expanded=true`: the devices with changes waiting. */
export const FmcDeployableDevices = z.looseObject({
  items: z
    .array(
      z.looseObject({
        device: z.looseObject({ id: z.string(), name: z.string().optional() }),
        version: z.union([z.string(), z.number()]).optional(),
      }),
    )
    .default([]),
});

/** `GET …/deployabledevices/{id}/pendingchanges`: only the total is read (`paging.count`). */
export const FmcPendingChanges = z.looseObject({
  items: z.array(z.unknown()).default([]),
  paging: z.looseObject({ count: z.number().int().nonnegative().optional() }).optional(),
});

/** The `DOMAINS` header of a login: the domains the user may work in. */
export const FmcDomains = z.array(z.looseObject({ name: z.string(), uuid: z.string() }));
export type FmcDomains = z.output<typeof FmcDomains>;

/** The first description in an FMC error body, or null. */
export function fmcErrorText(body: unknown): string | null {
  const parsed = FmcError.safeParse(body);
  if (!parsed.success) return null;
  const text = parsed.data.error.messages
    .map((message) => message.description ?? '')
    .filter((d) => d !== '')
    .join('; ');
  return text === '' ? null : text;
}

/** "HTTP 400: Invalid IP address or network: …" (short; the client redacts it before it is shown). */
export function describeFmcAnswer({ status, body }: VendorAnswer): string {
  const text = fmcErrorText(body);
  return text === null ? `HTTP ${status}` : `HTTP ${status}: ${text.length > 200 ? `${text.slice(0, 197)}...` : text}`;
}

/**
 * How FMC answers a change. Adding a mapping or literal that is there, or removing one that is gone,
 * is not an error for the calls the driver makes (mappings are a set; the group is rewritten whole),
 * so only throttling and failures need rules: 429 and 5xx are retryable (the kit's defaults), and a
 * 400 "Duplicate Name" means the object exists (fireREST's ResourceAlreadyExists).
 */
export const FMC_RULES: VendorRules = {
  alreadyPresent: (answer) => answer.status === 400 && /duplicate name/i.test(fmcErrorText(answer.body) ?? ''),
  retryable: (answer) => answer.status === 500,
};
