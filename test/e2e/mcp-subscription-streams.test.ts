import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBSCRIPTION_STREAMS } from '../../schema/catalogue/mcp-streams.ts';
import { fundedWorkspace } from '../support/billing.ts';
import { McpSignIn } from '../support/mcp-sign-in.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * MCP `subscriptions/listen` streams over HTTP (docs/mcp-auth.md "Subscription streams"): capped per key, weighed
 * against the rate limit, and ended when their key is revoked.
 */
const CEILING = 14;
let svc: TestService;
const opened: AbortController[] = [];

beforeAll(async () => {
  svc = await startTestService({ tiers: { free: { rateLimitPerMinute: CEILING } } });
});
afterAll(async () => {
  for (const controller of opened) controller.abort();
  await svc?.close();
});

const LISTEN = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'subscriptions/listen',
  params: {
    notifications: { toolsListChanged: true },
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});

/** Opens a stream and reads its first event (the acknowledgement); a refusal is read whole. */
async function listen(key: string, service: TestService = svc) {
  const controller = new AbortController();
  opened.push(controller);
  const res = await fetch(`${service.url}/mcp`, {
    method: 'POST',
    signal: controller.signal,
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-method': 'subscriptions/listen',
      'mcp-protocol-version': '2026-07-28',
    },
    body: LISTEN,
  });
  if (!res.headers.get('content-type')?.includes('text/event-stream')) return { res, body: await res.json(), controller };
  const reader = res.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  return { res, first, reader, controller };
}

/** Reads a stream until the server ends it. */
async function readToEnd(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  while (!(await reader.read()).done);
}

describe('MCP subscription streams', () => {
  it(`opens at most ${SUBSCRIPTION_STREAMS.maxOpenPerKey} per key, then refuses with 429 and Retry-After, spending no weight`, async () => {
    const { key, workspaceId } = await svc.newKey();
    for (let i = 0; i < SUBSCRIPTION_STREAMS.maxOpenPerKey; i++) {
      const stream = await listen(key);
      expect(stream.res.status).toBe(200);
      expect(stream.first).toContain('notifications/subscriptions/acknowledged');
    }
    const refused = await listen(key);
    expect(refused.res.status).toBe(429);
    expect(refused.res.headers.get('retry-after')).toBe(String(SUBSCRIPTION_STREAMS.retryAfterSeconds));
    expect(refused.res.headers.get('x-credits-charged')).toBe('0');
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', details: { reason: 'too_many_streams', limit: SUBSCRIPTION_STREAMS.maxOpenPerKey, per: 'key' } });
    // Another key of the same workspace still opens one: the cap is the key's.
    const other = await svc.newKey({ workspaceId });
    expect((await listen(other.key)).res.status).toBe(200);
  });

  it('frees a slot when its client goes away', async () => {
    const { key } = await svc.newKey();
    const streams = [];
    for (let i = 0; i < SUBSCRIPTION_STREAMS.maxOpenPerKey; i++) streams.push(await listen(key));
    expect((await listen(key)).res.status).toBe(429);
    streams[0]!.controller.abort();
    await expect.poll(async () => (await listen(key)).res.status).toBe(200);
  });

  it('spends rate-limit weight on each stream opened', async () => {
    const { key } = await svc.newKey();
    for (let i = 0; i < 4; i++) expect((await listen(key)).res.status).toBe(200);
    const spent = 4 * SUBSCRIPTION_STREAMS.rateLimitWeight;
    for (let i = spent; i < CEILING; i++) expect((await svc.request('GET', '/v1/whoami', { key })).status).toBe(200);
    expect((await svc.request('GET', '/v1/whoami', { key })).status).toBe(429);
    const refused = await listen(key);
    expect(refused.res.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(Number(refused.res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it(`opens at most ${SUBSCRIPTION_STREAMS.maxOpenPerPerson} per person, over the workspaces the person owns and the connections the person approved`, async () => {
    const { person, workspace } = await svc.service.people.signUp({ email: 'grace@example.com', password: 'correct horse battery', name: 'Grace' });
    const workspaces = [workspace.id];
    while (workspaces.length * SUBSCRIPTION_STREAMS.maxOpenPerKey < SUBSCRIPTION_STREAMS.maxOpenPerPerson + 1) {
      workspaces.push((await svc.service.identity.createWorkspace({ name: `more ${workspaces.length}`, ownerPersonId: person.id })).id);
    }
    // One key per workspace, each below its key, workspace and rate bounds.
    const keys = await Promise.all(workspaces.map((workspaceId) => svc.newKey({ workspaceId })));
    let opened = 0;
    for (const { key } of keys) {
      for (let i = 0; i < SUBSCRIPTION_STREAMS.maxOpenPerKey && opened < SUBSCRIPTION_STREAMS.maxOpenPerPerson; i++, opened++) expect((await listen(key)).res.status).toBe(200);
    }
    // Before: the person's next stream opened, up to the SDK's 1,024 for the whole instance.
    const refused = await listen(keys.at(-1)!.key);
    expect(refused.res.status).toBe(429);
    expect(refused.res.headers.get('retry-after')).toBe(String(SUBSCRIPTION_STREAMS.retryAfterSeconds));
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', details: { reason: 'too_many_streams', limit: SUBSCRIPTION_STREAMS.maxOpenPerPerson, per: 'person' } });
    // A connection the person approved counts as the person's too.
    const flow = new McpSignIn(svc.url, { session: (await svc.service.people.startSession(person.id)).token, workspaceId: workspace.id });
    const { tokens } = await flow.signIn();
    expect((await listen(tokens.access_token)).body.error).toMatchObject({ details: { per: 'person' } });
    // Another person's key is not held back.
    expect((await listen((await svc.newKey()).key)).res.status).toBe(200);
  });

  it('ends an open stream when its key is revoked', async () => {
    const { key, keyId } = await svc.newKey();
    const stream = await listen(key);
    expect(stream.res.status).toBe(200);
    expect((await svc.operator('POST', `/operator/keys/${keyId}/revoke`)).status).toBe(200);
    await readToEnd(stream.reader!);
    expect((await listen(key)).res.status).toBe(401);
  });

  it('ends an MCP connection’s open stream when its client revokes the access token it was opened with', async () => {
    const { person, workspace } = await svc.service.people.signUp({ email: 'ada@example.com', password: 'correct horse battery', name: 'Ada' });
    const flow = new McpSignIn(svc.url, { session: (await svc.service.people.startSession(person.id)).token, workspaceId: workspace.id });
    const { clientId, tokens } = await flow.signIn();
    const stream = await listen(tokens.access_token);
    expect(stream.res.status).toBe(200);
    const revoked = await fetch(`${svc.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token, client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    await readToEnd(stream.reader!);
    expect((await listen(tokens.access_token)).res.status).toBe(401);
  });
});

describe('MCP subscription streams of a whole instance', () => {
  const PER_INSTANCE = 3;
  const FREE_TIER = 2;
  let small: TestService;
  beforeAll(async () => {
    small = await startTestService({ mcpStreamsPerInstance: PER_INSTANCE, mcpFreeTierStreams: FREE_TIER });
  });
  afterAll(async () => {
    await small?.close();
  });

  it('are bounded below the SDK’s own limit: a full instance answers 429 naming the bound, and a place freed is taken again', async () => {
    const streams = [];
    // Free-tier workspaces (a new key's, with nothing bought) share a pool smaller than the instance.
    for (let i = 0; i < FREE_TIER; i++) streams.push(await listen((await small.newKey()).key, small));
    const free = await listen((await small.newKey()).key, small);
    // Before: opened, so sign-ups alone could fill the instance.
    expect(free.res.status).toBe(429);
    expect(free.body.error).toMatchObject({ code: 'rate_limited', details: { reason: 'too_many_streams', limit: FREE_TIER, per: 'free_tier' } });
    // An account that has bought credits still finds a place.
    streams.push(await listen((await fundedWorkspace(small, 1_000, 2_000)).key, small));
    expect(streams.map((stream) => stream.res.status)).toEqual(Array(PER_INSTANCE).fill(200));
    const { key } = await fundedWorkspace(small, 1_000, 2_000);
    // Before: opened (only the SDK's 1,024 bounded an instance, refused with JSON-RPC -32603).
    const refused = await listen(key, small);
    expect(refused.res.status).toBe(429);
    expect(refused.res.headers.get('x-credits-charged')).toBe('0');
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', details: { reason: 'too_many_streams', limit: PER_INSTANCE, per: 'instance' } });
    streams[0]!.controller.abort();
    await expect.poll(async () => (await listen(key, small)).res.status).toBe(200);
  });
});
