import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService();
  ({ key } = await svc.newKey({ scopes: ['read:social', 'usage:read'] }));
});
afterAll(async () => {
  await svc?.close();
});

const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_microblog_user', arguments: { user: 'simdevs' } } });

function post(body: unknown, version?: string, extra: Record<string, string> = {}) {
  return fetch(`${svc.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(version ? { 'mcp-protocol-version': version } : {}),
      ...extra,
    },
    body: JSON.stringify(body),
  });
}

describe('JSON-RPC batches on /mcp', () => {
  it('meter each call of a batch on its own (protocol versions that still allow batches)', async () => {
    const before = (await svc.request('GET', '/v1/usage', { key })).body.data.balance;
    const res = await post([call(1), call(2), call(3)]);
    expect(res.status).toBe(200);
    await res.text();
    const after = (await svc.request('GET', '/v1/usage', { key })).body.data.balance;
    // A profile costs 1 + 2: three of them 9, not 3 + 5 + 7.
    expect(before - after).toBe(9);
    expect(res.headers.get('x-credits-charged')).toBe('9');
  });

  it('refuse a batch under 2025-06-18 and later, charging nothing', async () => {
    const before = (await svc.request('GET', '/v1/usage', { key })).body.data.balance;
    const res = await post([call(1), call(2)], '2025-11-25');
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe(-32600);
    expect(res.headers.get('x-credits-charged')).toBe('0');
    expect((await svc.request('GET', '/v1/usage', { key })).body.data.balance).toBe(before);
  });
});

describe('the /mcp transport', () => {
  it('refuses a present Origin that is not allowed with 403, and serves an allowed one', async () => {
    const evil = await post(call(1), undefined, { origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.headers.get('x-credits-charged')).toBe('0');
    const allowed = await post(call(2), undefined, { origin: 'https://allowed.example' });
    expect(allowed.status).toBe(200);
    await allowed.text();
  });

  it('takes an all-digit id sent as a number where the input is a digit string', async () => {
    const res = await post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_microblog_users', arguments: { ids: 1500000002 } } });
    const text = await res.text();
    const message = JSON.parse(text.startsWith('{') ? text : text.split('\n').find((line) => line.startsWith('data:'))!.slice(5));
    expect(message.result.isError, text).toBeFalsy();
    expect(message.result.structuredContent.data[0].id).toBe('1500000002');
  });
});

describe('MCP tool listing', () => {
  it('gives every tool a title, hints, an output schema and its price', async () => {
    const res = await post({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
    const text = await res.text();
    const message = JSON.parse(text.startsWith('{') ? text : text.split('\n').find((line) => line.startsWith('data:'))!.slice(5));
    const tools = message.result.tools as Array<{ name: string; title?: string; description: string; outputSchema?: unknown; annotations?: Record<string, unknown> }>;
    const search = tools.find((tool) => tool.name === 'search_forum_posts')!;
    expect(search.title).toBe('Search Forum Posts');
    expect(search.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true, idempotentHint: true, destructiveHint: false });
    expect(search.description).toContain('Price: 1 credit a call + 3 per forum post returned');
    expect(search.description).toContain('nextCursor null is the only stop');
    expect(search.outputSchema).toMatchObject({ type: 'object', required: ['data', 'meta'] });
    for (const tool of tools) expect(tool.outputSchema, tool.name).toBeDefined();
    expect(tools.find((tool) => tool.name === 'whoami')!.description).toContain('Free; rate-limit weight 1.');
  });
});
