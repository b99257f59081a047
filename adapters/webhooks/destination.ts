import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** Where webhooks may be delivered: the operator may allow plain http and name hosts that skip the address rule. */
export interface DestinationPolicy {
  allowHttp: boolean;
  /**
   * Hosts allowed whatever they resolve to, as read by `allowanceEntry`: `host` (as `canonicalHost` spells it, an IPv6
   * address bare) on any port, or `host:port` (`[v6]:port`) on that port only. Tests use loopback receivers.
   */
  allowHosts: ReadonlySet<string>;
  /** Name resolution, injectable so tests can make a name resolve differently at creation and at delivery. */
  lookup: (hostname: string) => Promise<string[]>;
}

export async function systemLookup(hostname: string): Promise<string[]> {
  return (await dnsLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);
}

/**
 * A host as the allowance compares it: an IPv6 literal in the one spelling URLs give it (`::1`, not `0:0::1`), bare;
 * anything else lower case, without the trailing dot of an absolute DNS name (`example.com.` is `example.com`).
 */
function canonicalHost(host: string): string {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare.includes(':') && ipaddr.IPv6.isValid(bare)) return ipaddr.IPv6.parse(bare).toString();
  return bare.endsWith('.') ? bare.slice(0, -1) : bare;
}

/** `host:port`, an IPv6 address in brackets: the spelling of an allowance for one port. */
function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The port a URL (or a connection's options, which name it the same way) connects to. */
export function portOf(target: { port: string; protocol: string }): number {
  return target.port ? Number(target.port) : target.protocol === 'https:' ? 443 : 80;
}

/**
 * One `SVC_WEBHOOK_ALLOW_HOSTS` entry: `host` or `[v6]` (any port), `host:port` or `[v6]:port` (that port only). The
 * host is read as a URL reads it (`127.1` is `127.0.0.1`, `0x7f000001` too), so the entry names what webhook URLs will
 * name. An entry that could never match, or could be read two ways, is refused: the service does not start.
 */
export function allowanceEntry(raw: string): string {
  const text = raw.trim();
  const refuse = (why: string) => new Error(`SVC_WEBHOOK_ALLOW_HOSTS entry '${text}': ${why}`);
  if (!text.startsWith('[') && text.includes(':') && ipaddr.IPv6.isValid(text)) {
    // `::1:9000` is an address, but reads like `::1` on port 9000: only brackets say which.
    const [, address, port] = /^(.*):(\d{1,5})$/.exec(text) ?? [];
    if (address && ipaddr.IPv6.isValid(address)) throw refuse(`write [${text}] for that address on any port, or [${address}]:${port} for ${address} on port ${port}`);
    return canonicalHost(text);
  }
  const parts = /^(\[[^\]]*\]|[^:[\]/@?#\s]+)(?::(\d+))?$/.exec(text);
  if (!parts) throw refuse('expected host, host:port, [IPv6 address] or [IPv6 address]:port (e.g. example.com:8443, [::1]:9000)');
  let host: string;
  try {
    host = new URL(`http://${parts[1]}/`).hostname;
  } catch {
    throw refuse(`${parts[1]} is not a host name or address`);
  }
  if (parts[2] === undefined) return canonicalHost(host);
  const port = Number(parts[2]);
  if (port < 1 || port > 65_535) throw refuse(`port ${parts[2]} is outside 1-65535`);
  return hostPort(canonicalHost(host), port);
}

/** `SVC_WEBHOOK_ALLOW_HOSTS` (comma-separated) and `SVC_WEBHOOK_ALLOW_HTTP` (`true`): operator settings. */
export function destinationPolicyFromEnv(env: Record<string, string | undefined>): DestinationPolicy {
  const hosts = (env.SVC_WEBHOOK_ALLOW_HOSTS ?? '').split(',').filter((entry) => entry.trim()).map(allowanceEntry);
  return { allowHttp: env.SVC_WEBHOOK_ALLOW_HTTP === 'true', allowHosts: new Set(hosts), lookup: systemLookup };
}

/** The ports the policy's `host:port` entries name: only connections to these need to know their port. */
export function allowedPorts(policy: DestinationPolicy): Set<number> {
  const ports = [...policy.allowHosts].map((entry) => /^(?:\[[^\]]+\]|[^:]+):(\d+)$/.exec(entry)?.[1]);
  return new Set(ports.filter((port) => port !== undefined).map(Number));
}

/** IPv6 global unicast: ipaddr.js calls every address it has no name for `unicast`, ::/96 (IPv4-compatible) included. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/**
 * Cloud host endpoints that sit in public unicast space, so no range test catches them: Azure's WireServer and
 * metadata relay. The others in use (169.254.169.254, 169.254.170.2, fd00:ec2::254, Alibaba's 100.100.100.200) are
 * link-local, unique-local or shared addresses, refused by range.
 */
const METADATA_ADDRESSES: ReadonlySet<string> = new Set(['168.63.129.16']);

/**
 * Only public unicast addresses are permitted: never loopback, private, link-local (cloud metadata included), shared
 * (CGNAT), unique-local, multicast, broadcast, unspecified or reserved ones. An IPv4-mapped IPv6 address is judged as
 * the IPv4 address it carries; any other IPv6 address must be global unicast (2000::/3), less the ranges inside it that
 * are not public unicast (documentation, 6to4, Teredo, ORCHID, benchmarking), so an IPv4-compatible `::7f00:1` or an
 * unassigned block never reaches an IPv4 host through a dual-stack or translating network. Says what a forbidden
 * address is (`a loopback address`), without the address; null for a permitted one.
 */
export function forbiddenAddress(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (METADATA_ADDRESSES.has(parsed.toString())) return 'a cloud metadata address';
  const range = parsed.range();
  if (range !== 'unicast') return `a ${range} address`;
  if (parsed.kind() === 'ipv6' && !(parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return 'an address that is not global unicast (2000::/3)';
  return null;
}

/**
 * Why a host is refused, given what `forbiddenAddress` said of one of its addresses. A literal is named (the tenant
 * wrote it); a name is not followed by its address: what an internal name resolves to is not the tenant's to learn.
 */
function refusal(hostname: string, literal: string | null, what: string): string {
  return literal ? `${literal} is ${what}` : `${hostname} resolves to ${what}`;
}

/** The URL's host as an address literal, or null for a name. */
function literalAddress(hostname: string): string | null {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(bare) ? bare : null;
}

/**
 * Whether the operator allows this host on this port whatever it resolves to; `null` stands for any port no
 * `host:port` entry names (`allowedPorts`), where only plain `host` entries apply.
 */
function allowed(policy: DestinationPolicy, hostname: string, port: number | null): boolean {
  const host = canonicalHost(hostname);
  return policy.allowHosts.has(host) || (port !== null && policy.allowHosts.has(hostPort(host, port)));
}

/**
 * The check at creation: scheme, then the literal address or every address the name resolves to. A name that does
 * not resolve yet is accepted (it is checked again, on the connection used, at every delivery).
 */
export async function checkDestination(policy: DestinationPolicy, raw: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not an absolute URL' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) return { ok: false, reason: policy.allowHttp ? 'only http and https URLs' : 'only https URLs' };
  if (url.username || url.password) return { ok: false, reason: 'credentials in the URL' };
  if (allowed(policy, url.hostname, portOf(url))) return { ok: true };
  const literal = literalAddress(url.hostname);
  if (literal) {
    const what = forbiddenAddress(literal);
    return what ? { ok: false, reason: refusal(url.hostname, literal, what) } : { ok: true };
  }
  let addresses: string[];
  try {
    addresses = await policy.lookup(url.hostname);
  } catch {
    return { ok: true };
  }
  for (const address of addresses) {
    const what = forbiddenAddress(address);
    if (what) return { ok: false, reason: refusal(url.hostname, null, what) };
  }
  return { ok: true };
}

/**
 * For the connection a delivery opens to `port` (`null`: a port no `host:port` entry names): the host's addresses,
 * refused when any is forbidden (DNS rebinding included).
 */
export async function permittedAddresses(policy: DestinationPolicy, hostname: string, port: number | null): Promise<string[]> {
  const literal = literalAddress(hostname);
  const addresses = literal ? [literal] : await policy.lookup(hostname);
  if (allowed(policy, hostname, port)) return addresses;
  for (const address of addresses) {
    const what = forbiddenAddress(address);
    if (what) throw new Error(`forbidden destination: ${refusal(hostname, literal, what)}`);
  }
  return addresses;
}
