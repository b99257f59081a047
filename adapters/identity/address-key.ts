import ipaddr from 'ipaddr.js';

/**
 * The key every per-address limit counts a client under (sign-ups, sign-in failures, OAuth registrations and
 * authorization requests): an IPv4 address as it is, an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, how a dual-stack
 * listener sees IPv4 clients) as that IPv4 address, and an IPv6 address by its /64: one subscriber is given at least
 * a /64 and may use any address in it, so counting single addresses would limit nothing. Anything else (no address,
 * a name) is kept as it is.
 */
export function addressKey(address: string): string {
  // A link-local address may carry its zone (`fe80::1%eth0`), which ipaddr.js parses too.
  if (!ipaddr.isValid(address)) return address;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${new ipaddr.IPv6([...(parsed as ipaddr.IPv6).parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}
