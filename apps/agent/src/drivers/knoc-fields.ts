import type { AgentKnoc } from '@postern/protocol';
import { z } from 'zod';

/**
 * The fields each driver reads from a knoc, parsed leniently (the server validated them on the way
 * in) but strictly enough that a driver never writes a value it did not expect. A knoc that does not
 * fit cannot be enforced at all, so parsing throws and every entry of the call fails with the reason.
 */

const name = z.string().trim().default('');

const IpsetAcl = z.object({ V4SetName: name, V6SetName: name });
export type IpsetAcl = z.infer<typeof IpsetAcl>;

/** Where a socket lives: the backend's Protocol and Address ('' means "the agent's default"). */
const SocketBackend = z.object({ Protocol: z.enum(['unix', 'tcp']).default('unix'), Address: name });
export type SocketBackend = z.infer<typeof SocketBackend>;

const HaproxyAcl = z.object({
  ID: z
    .union([z.string(), z.number()])
    .transform((value) => String(value).trim())
    .pipe(z.string().regex(/^\d{1,9}$/, 'the HAProxy ACL ID must be a number')),
});

const KnocproxyAcl = z.object({ Name: name });

const ScriptBackend = z.object({
  Command: z.string().trim().min(1, 'the script backend has no Command'),
  EnvVars: z.array(z.object({ Name: z.string(), Sensitive: z.boolean().default(false) })).default([]),
});

/** A script variable with its value; a sensitive value arrives decrypted and is never logged. */
const ScriptVariable = z.object({
  Name: z.string().trim(),
  Value: z.string().default(''),
  Sensitive: z.boolean().default(false),
});
export type ScriptVariable = z.infer<typeof ScriptVariable>;

const ScriptAcl = z.object({ Name: name, EnvVars: z.array(ScriptVariable).default([]) });

/** Raised when a knoc's fields cannot drive its backend. */
export class KnocFieldsError extends Error {
  override name = 'KnocFieldsError';
}

function parse<T>(schema: z.ZodType<T>, value: unknown, knoc: AgentKnoc, part: string): T {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? part : `${part}.${issue.path.join('.')}`;
  throw new KnocFieldsError(`knoc ${knoc.aclId} has an unusable ${where}: ${issue?.message ?? 'invalid'}`);
}

export const ipsetFields = (knoc: AgentKnoc) => ({ acl: parse(IpsetAcl, knoc.acl, knoc, 'ipset ACL config') });

export const haproxyFields = (knoc: AgentKnoc) => ({
  backend: parse(SocketBackend, knoc.backend, knoc, 'haproxy backend config'),
  acl: parse(HaproxyAcl, knoc.acl, knoc, 'haproxy ACL config'),
});

export const knocproxyFields = (knoc: AgentKnoc) => ({
  backend: parse(SocketBackend, knoc.backend, knoc, 'knocproxy backend config'),
  acl: parse(KnocproxyAcl, knoc.acl, knoc, 'knocproxy ACL config'),
});

export const scriptFields = (knoc: AgentKnoc) => ({
  backend: parse(ScriptBackend, knoc.backend, knoc, 'script backend config'),
  acl: parse(ScriptAcl, knoc.acl, knoc, 'script ACL config'),
});
