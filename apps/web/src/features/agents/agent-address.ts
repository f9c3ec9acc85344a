/**
 * The address part of an agent's remote address, as the spec shows it (a trailing port stripped):
 * `203.0.113.5:4711` → `203.0.113.5`, `[2001:db8::1]:4711` → `2001:db8::1`. A bare IPv6 address
 * (several colons, no brackets) is kept whole, since its last group is not a port. The server already
 * strips the port; doing it here as well keeps the column right whatever an older server sends.
 */
export function displayAddress(address: string | null): string | null {
  if (address === null) return null;
  const value = address.trim();
  if (value === '') return null;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed?.[1] !== undefined) return bracketed[1];
  const withPort = /^([^:]+):\d+$/.exec(value);
  if (withPort?.[1] !== undefined) return withPort[1];
  return value;
}
