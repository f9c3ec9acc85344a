import { z } from 'zod';
import type { VendorAnswer, VendorRules } from '../../kit/vendor-outcome.js';

/**
 * The FortiOS REST answers the driver reads (VENDORS.md 1.1). Every answer is a JSON object with
 * `status` ("success" | "error") and `http_status`; errors add a numeric `error` code. Unknown
 * fields are kept: firmware versions add fields, and the driver reads only these.
 */
export const FortiosAnswer = z.looseObject({
  status: z.string().optional(),
  http_status: z.number().optional(),
  error: z.number().optional(),
});

/** A write (POST/DELETE) that worked. */
export const FortiosWriteAnswer = z.looseObject({ status: z.literal('success') });

const MemberRow = z.looseObject({ name: z.string() });

/** `GET …/addrgrp/<G>`: the group, with its member sub-table. */
export const FortiosGroupAnswer = z.looseObject({
  results: z.array(z.looseObject({ name: z.string(), member: z.array(MemberRow).default([]) })).min(1),
});

/** `GET …/address` and `…/address6`: address objects, with what each one opens. */
export const FortiosAddressListAnswer = z.looseObject({
  results: z.array(
    z.looseObject({
      name: z.string(),
      type: z.string().optional(),
      /** IPv4: "203.0.113.7 255.255.255.255" as FortiOS shows it (or "203.0.113.7/32" as written). */
      subnet: z.string().optional(),
      /** IPv6: "2001:db8::7/128". */
      ip6: z.string().optional(),
    }),
  ),
});

/** `GET …/addrgrp/<G>/member/<N>`: the member row when it is there. */
export const FortiosMemberAnswer = z.looseObject({ results: z.array(MemberRow).min(1) });

/** FortiOS's numeric error code in an answer body, or null. */
export function fortiosErrorCode(body: unknown): number | null {
  const parsed = FortiosAnswer.safeParse(body);
  return parsed.success && parsed.data.error !== undefined ? parsed.data.error : null;
}

/** The documented codes, for messages. */
const MEANINGS: Readonly<Record<number, string>> = { [-3]: 'object not found', [-5]: 'object already exists' };

/** "HTTP 500, FortiOS error -5 (object already exists)". */
export function describeFortiosAnswer({ status, body }: VendorAnswer): string {
  const code = fortiosErrorCode(body);
  if (code === null) return `HTTP ${status}`;
  const meaning = MEANINGS[code];
  return `HTTP ${status}, FortiOS error ${code}${meaning === undefined ? '' : ` (${meaning})`}`;
}

/**
 * How FortiOS says "already there" and "already gone": a duplicate POST answers HTTP 500 with -5
 * (terraform-provider-fortios #244); a missing object answers 404 with -3 (the Ansible collection's
 * error table). A 2xx whose body says status "error" is a failure.
 */
export const FORTIOS_RULES: VendorRules = {
  alreadyPresent: (answer) => answer.status === 500 && fortiosErrorCode(answer.body) === -5,
  alreadyAbsent: (answer) => answer.status === 404 || fortiosErrorCode(answer.body) === -3,
  failedDespiteSuccess: (answer) => FortiosAnswer.safeParse(answer.body).data?.status === 'error',
};
