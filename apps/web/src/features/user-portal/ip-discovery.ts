import { DiscoveredIp, formatIp, IP_DISCOVERY_PORTS, neverGrantedKind, parseIp } from '@postern/protocol';

/** A discovery request that has not answered by then is given up: it must never hold anything back. */
const DISCOVERY_TIMEOUT_MS = 5_000;

/** The discovery URL for one port: the IPApi base with that port (the base's path kept). */
export function discoveryUrl(base: string, port: number): string | null {
  if (!/^https?:\/\//i.test(base) || !URL.canParse(base)) return null;
  const url = new URL(base);
  url.port = String(port);
  return url.toString();
}

/** What a discovery answer says: the address, and the attestation when Postern's responder signed it. */
interface Answer {
  address: string;
  attestation?: string;
}

/**
 * The address in a discovery answer: `{"IP": "…", "Attestation": "…"}` (Postern's responder), another
 * service's `{"ip": "…"}`, or the bare address as text.
 */
function answerIn(text: string): Answer | null {
  const trimmed = text.trim();
  try {
    const json = JSON.parse(trimmed) as unknown;
    if (typeof json === 'object' && json !== null) {
      const { IP, ip, Attestation } = json as { IP?: unknown; ip?: unknown; Attestation?: unknown };
      const value = IP ?? ip;
      if (typeof value !== 'string') return null;
      return typeof Attestation === 'string'
        ? { address: value.trim(), attestation: Attestation }
        : { address: value.trim() };
    }
    return typeof json === 'string' ? { address: json.trim() } : null;
  } catch {
    return { address: trimmed };
  }
}

/**
 * Addresses the server would refuse outright — loopback, link-local, multicast, cloud metadata (see
 * net.ts) — are not reported: a browser on the portal's own machine or a lab network learns such an
 * address, and sending it along would make every grant fail.
 */
function mayBeGranted(address: string): boolean {
  const parsed = parseIp(address);
  return parsed !== null && neverGrantedKind(parsed) === null;
}

async function probe(url: string, port: number, fetchImpl: typeof fetch): Promise<DiscoveredIp | null> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), DISCOVERY_TIMEOUT_MS);
  try {
    // No cookies: the discovery host only learns the address the request comes from.
    const response = await fetchImpl(url, {
      method: 'GET',
      mode: 'cors',
      credentials: 'omit',
      cache: 'no-store',
      signal: controller.signal,
    });
    if (!response.ok) return null;
    const answer = answerIn(await response.text());
    if (answer === null || !mayBeGranted(answer.address)) return null;
    const parsed = DiscoveredIp.safeParse({
      Port: port,
      IP: answer.address,
      ...(answer.attestation === undefined ? {} : { Attestation: answer.attestation }),
    });
    return parsed.success ? parsed.data : null;
  } catch {
    // Blocked, refused, timed out: that path simply yields no address.
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Asks the IP discovery host (IPApi) on each discovery port (443, 222, 3389, 8000) which address the
 * browser comes from there, all at once, and answers the port-to-address list of those that
 * answered, each with the responder's attestation when it gave one (the server needs it to accept an
 * address that is not the request's own). Never rejects.
 */
export async function discoverIps(
  base: string,
  ports: readonly number[] = IP_DISCOVERY_PORTS,
  fetchImpl: typeof fetch = (...args) => fetch(...args),
): Promise<DiscoveredIp[]> {
  const probes = ports.map((port) => {
    const url = discoveryUrl(base, port);
    return url === null ? Promise.resolve(null) : probe(url, port, fetchImpl);
  });
  return (await Promise.all(probes)).filter((found): found is DiscoveredIp => found !== null);
}

/** An address family as net.ts numbers it. */
export type IpFamily = 4 | 6;

/**
 * Dual stack: asks one of the IPv4-only or IPv6-only discovery URLs (IPv4Api, IPv6Api) for the
 * browser's address of that `family`, one discovery port after the other, and answers the first
 * such address, or null. One answer is all a grant needs (the ports matter for the CGNAT probes of
 * discoverIps, not here), so the next port is asked only when one is blocked or fails: a round costs
 * the responder one request per URL, not one per port. An answer of the other family (a name that
 * has both an A and an AAAA record after all) is not this URL's.
 */
export async function discoverFamily(
  base: string,
  family: IpFamily,
  ports: readonly number[] = IP_DISCOVERY_PORTS,
  fetchImpl: typeof fetch = (...args) => fetch(...args),
): Promise<DiscoveredIp | null> {
  if (base === '') return null;
  for (const port of ports) {
    const url = discoveryUrl(base, port);
    const found = url === null ? null : await probe(url, port, fetchImpl);
    if (found !== null && parseIp(found.IP)?.family === family) return found;
  }
  return null;
}

/**
 * The address of the other family than `current` (the one the server sees) among the dual-stack
 * answers, as the server picks it for a grant (apps/server/src/grants/seen-addresses.ts), or null.
 */
export function otherFamilyAddress(current: string | undefined, dualStack: readonly DiscoveredIp[]): string | null {
  const family = current === undefined ? undefined : parseIp(current)?.family;
  if (family === undefined) return null;
  const other = dualStack.find((entry) => {
    const parsed = parseIp(entry.IP);
    return parsed !== null && parsed.family !== family;
  });
  const parsed = other === undefined ? null : parseIp(other.IP);
  return parsed === null ? null : formatIp(parsed);
}

/**
 * A stable text for a discovery result, to tell whether it changed since it was last posted. The
 * attestations are left out: they are renewed on every round, and the server keeps a logged address.
 */
export function discoveryKey(ips: readonly DiscoveredIp[]): string {
  return ips
    .map((entry) => `${entry.Port}=${entry.IP}`)
    .sort()
    .join(',');
}
