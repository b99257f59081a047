import { isIP, isIPv6 } from 'node:net';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { Agent, buildConnector } from 'undici';
import { allowedPorts, permittedAddresses, portOf, type DestinationPolicy } from './destination.ts';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Connects through a connector built for the connection's port when a `host:port` entry names that port, else
 * through one shared by every other port (`null`): a fixed few, however many ports tenants' URLs use.
 */
export function portAwareConnect(policy: DestinationPolicy, build: (port: number | null) => buildConnector.connector): buildConnector.connector {
  const named = new Map([...allowedPorts(policy)].map((port) => [port, build(port)]));
  const others = build(null);
  return (connectOptions, callback) => (named.get(portOf(connectOptions)) ?? others)(connectOptions, callback);
}

/**
 * An undici agent that connects only where the destination rule permits, judged BEFORE any connection is opened: a
 * name is resolved through the rule (so one that turns into a forbidden address, DNS rebinding included, is refused
 * on the connection actually used), and a literal address, which connects without a lookup, is checked first. Used
 * by webhook deliveries and by the authorization server's client ID metadata document fetch: one filter for every
 * URL a tenant or a stranger names.
 */
export function destinationAgent(policy: DestinationPolicy, options: { timeoutMs: number }): Agent {
  // A lookup is told the host only, and an allowance may name a port: the connector's lookup knows it (`portAwareConnect`).
  const lookupFor = (port: number | null) => (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback): void => {
    permittedAddresses(policy, hostname, port).then(
      (addresses) => {
        const entries = addresses.map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }));
        if (lookupOptions.all) callback(null, entries);
        else callback(null, entries[0].address, entries[0].family);
      },
      (error: Error) => callback(Object.assign(error, { code: 'EFORBIDDEN' }), []),
    );
  };
  const byPort = portAwareConnect(policy, (port) => buildConnector({ lookup: lookupFor(port) as never, timeout: options.timeoutMs }));
  const connect: buildConnector.connector = (connectOptions, callback) => {
    const host = connectOptions.hostname.replace(/^\[|\]$/g, '');
    if (!isIP(host)) return byPort(connectOptions, callback);
    permittedAddresses(policy, host, portOf(connectOptions)).then(
      () => byPort(connectOptions, callback),
      (error: Error) => callback(Object.assign(error, { code: 'EFORBIDDEN' }), null),
    );
  };
  return new Agent({ connect, keepAliveTimeout: 10_000 });
}
