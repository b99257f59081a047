import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowanceEntry, checkDestination, destinationPolicyFromEnv, systemLookup, type DestinationPolicy } from '../../../adapters/webhooks/destination.ts';
import { portAwareConnect } from '../../../adapters/webhooks/destination-agent.ts';
import { createEventSender } from '../../../adapters/webhooks/send-event.ts';
import { startReceiver } from '../../support/webhook-receiver.ts';

/** The sender on its own, against a loopback receiver: what it refuses at connection time, and what it sends. */
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let port: number;
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const senders: ReturnType<typeof createEventSender>[] = [];

function sender(policy: Partial<DestinationPolicy>) {
  const send = createEventSender({ allowHttp: true, allowHosts: new Set(), lookup: systemLookup, ...policy }, { timeoutMs: 2_000 });
  senders.push(send);
  return send;
}

const event = (url: string) => ({ url, secret, eventId: `evt_${randomBytes(8).toString('hex')}`, timestamp: new Date(), body: JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: {} }) });

beforeAll(async () => {
  receiver = await startReceiver();
  port = Number(new URL(receiver.url('/')).port);
});
afterAll(async () => {
  for (const send of senders) await send.close();
  await receiver?.close();
});

describe('the delivery sender', () => {
  it.each([
    ['127.1', 'http://127.1:PORT/short'],
    ['0x7f000001', 'http://0x7f000001:PORT/hex'],
    ['2130706433', 'http://2130706433:PORT/decimal'],
    ['[::ffff:127.0.0.1]', 'http://[::ffff:127.0.0.1]:PORT/mapped'],
    ['localhost', 'http://localhost:PORT/name'],
  ])('refuses %s on the connection, whatever was checked before, and sends nothing', async (spelling, template) => {
    const url = template.replace('PORT', String(port));
    const outcome = await sender({})(event(url));
    expect(outcome).toMatchObject({ statusCode: null, responseExcerpt: null });
    expect(outcome.error).toMatch(spelling === 'localhost' ? /^forbidden destination: localhost resolves to a loopback address$/ : /^forbidden destination: \S+ is a loopback address$/);
    expect(receiver.at(new URL(url).pathname)).toHaveLength(0);
  });

  it('refuses a name when any address it resolves to is forbidden', async () => {
    const outcome = await sender({ lookup: async () => ['93.184.216.34', '127.0.0.1'] })(event(`http://mixed.test:${port}/mixed`));
    expect(outcome.error).toBe('forbidden destination: mixed.test resolves to a loopback address');
    expect(receiver.at('/mixed')).toHaveLength(0);
  });

  it('sends a body that the standardwebhooks package verifies, on a host the operator allowed', async () => {
    const sent = event(receiver.url('/allowed'));
    const outcome = await sender({ allowHosts: new Set(['127.0.0.1']) })(sent);
    expect(outcome).toMatchObject({ statusCode: 200, error: null, responseExcerpt: 'answered 200' });
    const [request] = receiver.at('/allowed');
    expect(new Webhook(secret).verify(request.body, request.headers)).toEqual(JSON.parse(sent.body));
    expect(request.headers['webhook-id']).toBe(sent.eventId);
  });

  it('does not follow a redirect, even to an allowed host', async () => {
    receiver.answer('/moved', { status: 307, headers: { location: receiver.url('/target') } });
    const outcome = await sender({ allowHosts: new Set(['127.0.0.1']) })(event(receiver.url('/moved')));
    expect(outcome).toMatchObject({ statusCode: 307, error: `redirect to ${receiver.url('/target')} not followed` });
    expect(receiver.at('/target')).toHaveLength(0);
  });
});

describe('an operator allowance with a port', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    [' Hooks.Example.COM ', 'hooks.example.com'],
    ['hooks.example.com:8443', 'hooks.example.com:8443'],
    ['[0:0::1]', '::1'],
    ['::1', '::1'],
    ['[0:0::1]:08080', '[::1]:8080'],
    // As a webhook URL names the same host, so the entry can match it.
    ['127.1:9000', '127.0.0.1:9000'],
    ['0x7f000001', '127.0.0.1'],
    ['[::ffff:127.0.0.1]:9000', '[::ffff:7f00:1]:9000'],
    ['hooks.example.com.:8443', 'hooks.example.com:8443'],
    ['Hooks.Example.COM.', 'hooks.example.com'],
    ['fe80::1', 'fe80::1'],
  ])('reads %j as %j', (raw, entry) => {
    expect(allowanceEntry(raw)).toBe(entry);
  });

  it.each([
    ['host:99999', /'host:99999': port 99999 is outside 1-65535/],
    ['host:0', /'host:0': port 0 is outside 1-65535/],
    ['::1:9000', /'::1:9000': write \[::1:9000\] for that address on any port, or \[::1\]:9000 for ::1 on port 9000/],
    ['2001:db8::1:443', /\[2001:db8::1\]:443 for 2001:db8::1 on port 443/],
    ['host:', /'host:': expected host, host:port, \[IPv6 address\] or \[IPv6 address\]:port/],
    ['https://host', /expected host, host:port/],
    ['user@host', /expected host, host:port/],
    ['[1:2]:9000', /'\[1:2\]:9000': \[1:2\] is not a host name or address/],
  ])('refuses %j, naming it and how to write it', (raw, message) => {
    expect(() => allowanceEntry(raw)).toThrow(message);
  });

  it('refuses a bad entry when the service reads its settings', () => {
    expect(() => destinationPolicyFromEnv({ SVC_WEBHOOK_ALLOW_HOSTS: '127.0.0.1:9000, ::1:9000' })).toThrow(/SVC_WEBHOOK_ALLOW_HOSTS entry '::1:9000'/);
  });

  it('matches a URL whose host is spelled another way, or ends in a dot', async () => {
    const policy = { allowHttp: true, allowHosts: new Set([allowanceEntry('127.1:9000'), allowanceEntry('hooks.example.com.')]), lookup: async () => ['127.0.0.1'] };
    expect(await checkDestination(policy, 'http://127.0.0.1:9000/')).toEqual({ ok: true });
    expect(await checkDestination(policy, 'http://hooks.example.com/')).toEqual({ ok: true });
    expect(await checkDestination(policy, 'http://hooks.example.com.:1234/')).toEqual({ ok: true });
    expect(await checkDestination(policy, 'http://127.0.0.1:9001/')).toMatchObject({ ok: false });
  });

  it('lets a delivery through on that port only, for a literal address and for a name, on the connection itself', async () => {
    const other = port === 65_535 ? port - 1 : port + 1;
    const literal = sender({ allowHosts: new Set([allowanceEntry(`127.0.0.1:${port}`)]) });
    expect(await literal(event(receiver.url('/port-literal')))).toMatchObject({ statusCode: 200, error: null });
    expect((await literal(event(`http://127.0.0.1:${other}/port-literal-other`))).error).toBe('forbidden destination: 127.0.0.1 is a loopback address');
    const named = sender({ allowHosts: new Set([allowanceEntry(`receiver.test:${port}`)]), lookup: async () => ['127.0.0.1'] });
    expect(await named(event(`http://receiver.test:${port}/port-name`))).toMatchObject({ statusCode: 200, error: null });
    expect((await named(event(`http://receiver.test:${other}/port-name-other`))).error).toBe('forbidden destination: receiver.test resolves to a loopback address');
    expect(receiver.at('/port-literal')).toHaveLength(1);
    expect(receiver.at('/port-name')).toHaveLength(1);
  });
});

describe('the sender’s connectors', () => {
  it('are one per port a host:port entry names and one shared by every other port, however many ports are used', () => {
    const built: Array<number | null> = [];
    const used: Array<[number | null, string]> = [];
    const connect = portAwareConnect({ allowHttp: true, allowHosts: new Set(['receiver.test', 'other.test:8443', '[::1]:9000']), lookup: systemLookup }, (port) => {
      built.push(port);
      return (options) => used.push([port, `${options.hostname}:${options.port || options.protocol}`]);
    });
    const callback = () => undefined;
    for (let port = 10_001; port <= 10_020; port++) connect({ hostname: 'receiver.test', host: 'receiver.test', protocol: 'http:', port: String(port) }, callback);
    connect({ hostname: 'elsewhere.test', host: 'elsewhere.test', protocol: 'https:', port: '8443' }, callback);
    connect({ hostname: '::1', host: '[::1]', protocol: 'http:', port: '9000' }, callback);
    connect({ hostname: 'other.test', host: 'other.test', protocol: 'https:', port: '' }, callback);
    expect(built).toEqual([8443, 9000, null]);
    expect(used.slice(0, 20).every(([port]) => port === null)).toBe(true);
    expect(used.slice(20)).toEqual([[8443, 'elsewhere.test:8443'], [9000, '::1:9000'], [null, 'other.test:https:']]);
  });
});
