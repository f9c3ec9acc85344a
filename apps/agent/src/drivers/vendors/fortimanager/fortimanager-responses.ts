import { z } from 'zod';

/**
 * The FortiManager JSON-RPC answers the driver reads (VENDORS.md 1.2). Every call is answered
 * `{id, result:[{status:{code,message}, url, data?}, …]}`, one result per param, in order; HTTP 200
 * even when an operation failed. Unknown fields are kept.
 */
export const FmgStatus = z.looseObject({ code: z.number(), message: z.string().default('') });

export const FmgResult = z.looseObject({ status: FmgStatus, data: z.unknown().optional() });
export type FmgResult = z.output<typeof FmgResult>;

export const FmgAnswer = z.looseObject({ result: z.array(FmgResult) });

/** `get …/obj/firewall/addrgrp/{G}`: the group; `member` is a list of names (one name alone when single). */
export const FmgGroup = z.looseObject({
  name: z.string().optional(),
  member: z
    .union([z.array(z.string()), z.string()])
    .optional()
    .transform((member) => (member === undefined ? [] : Array.isArray(member) ? member : [member])),
});

/** `get …/obj/firewall/address` (or `address6`): the objects, with what each opens. */
export const FmgAddress = z.looseObject({
  name: z.string(),
  type: z.union([z.string(), z.number()]).optional(),
  subnet: z.array(z.unknown()).optional(),
  ip6: z.unknown().optional(),
});
export type FmgAddress = z.output<typeof FmgAddress>;
export const FmgAddressList = z
  .array(FmgAddress)
  .nullish()
  .transform((list) => list ?? []);

/** `get /cli/global/system/global` with the workspace field. */
export const FmgGlobal = z.looseObject({ 'workspace-mode': z.union([z.string(), z.number()]).optional() });

/** `get /pm/pkg/adom/{adom}`: the policy packages and where each is installed. */
export const FmgPackages = z
  .array(
    z.looseObject({
      name: z.string(),
      type: z.string().optional(),
      'scope member': z.array(z.looseObject({ name: z.string(), vdom: z.string().optional() })).optional(),
    }),
  )
  .default([]);

/** `exec /securityconsole/install/package`: the task to poll. */
export const FmgTaskStarted = z.looseObject({ task: z.union([z.number(), z.string()]) });

/** `get /task/task/{id}`. */
export const FmgTask = z.looseObject({
  percent: z.number().default(0),
  state: z.union([z.string(), z.number()]).optional(),
  num_err: z.number().default(0),
  line: z.array(z.looseObject({ detail: z.string().optional() })).optional(),
});

/** The documented status codes, for messages and outcomes. */
export const FMG_ALREADY_EXISTS = -2;
export const FMG_NOT_FOUND = -3;

/** "FortiManager status -2 (Object already exists)". */
export function describeFmgStatus(status: { code: number; message: string }): string {
  return `FortiManager status ${status.code}${status.message === '' ? '' : ` (${status.message})`}`;
}
