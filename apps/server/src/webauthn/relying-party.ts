import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../app-context.js';
import { readSetting } from '../settings/settings.js';

/** Where a ceremony runs: the RP ID passkeys are scoped to and the origin the browser must be on. */
export interface RelyingParty {
  rpId: string;
  origin: string;
}

/** What of the request the relying party is worked out from (the routes pass it to the services). */
export interface RequestAddress {
  /** `http` or `https`, as Fastify sees it behind the trusted proxies. */
  protocol: string;
  /** Host and port, as Fastify sees them behind the trusted proxies. */
  host: string;
}

export function requestAddress(request: FastifyRequest): RequestAddress {
  return { protocol: request.protocol, host: request.host };
}

/**
 * The relying party of a ceremony: the PublicURL setting's origin and host name when it is set
 * (else the configured public URL), else the request's as the server sees it. Passkeys are bound to
 * the RP ID they were made for, so a portal reached under its published name should publish it.
 */
export async function relyingParty(ctx: AppContext, address: RequestAddress): Promise<RelyingParty> {
  const published = (await readSetting(ctx.db, 'PublicURL')) || (ctx.config.publicUrl ?? '');
  const url = parseUrl(published) ?? parseUrl(`${address.protocol}://${address.host}`);
  // A Host header that is no host cannot come from a browser on a real page; nothing matches it.
  if (url === null) return { rpId: 'invalid', origin: 'null' };
  return { rpId: url.hostname.replace(/^\[(.*)\]$/, '$1'), origin: url.origin };
}

function parseUrl(text: string): URL | null {
  if (text === '' || !URL.canParse(text)) return null;
  const url = new URL(text);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
}
