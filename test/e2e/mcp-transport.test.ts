import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../support/mcp.ts';
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
  it('answers a GET or DELETE with 405 (no stream is kept) and a body that is not JSON with -32700 (spec review h, H1)', async () => {
    const headers = { authorization: `Bearer ${key}`, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${svc.url}/mcp`, { method, headers });
      // Before: 200 with an empty body, which the official client took for a stream that ended, asking again each second.
      expect([method, res.status]).toEqual([method, 405]);
      await res.text();
    }
    for (const body of ['not json', '']) {
      const res = await fetch(`${svc.url}/mcp`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
      expect(res.status).toBe(400);
      expect((await res.json()).error.code).toBe(-32700);
    }
    // A leading byte order mark is not JSON to this bridge: refused, not handed to the SDK, which would read it past
    // the batch bound, the weights and the stream slots (late review h: a BOM batch of 50 tools/list answered 14 MB,
    // weighing 1). Batches are allowed without a protocol version.
    const batch = JSON.stringify(Array.from({ length: 50 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'tools/list' })));
    const { 'mcp-protocol-version': _version, ...unversioned } = headers;
    const marked = await fetch(`${svc.url}/mcp`, { method: 'POST', headers: { ...unversioned, 'content-type': 'application/json' }, body: `\uFEFF${batch}` });
    expect(marked.status).toBe(400);
    expect((await marked.json()).error.code).toBe(-32700);
  });

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

  it('refuses, naming it, an id sent as a number too large for JSON to carry exactly', async () => {
    // The body's 2083486896092087808 is 2083486896092087800 once parsed: before, that id was looked up (security review h, G-M3).
    const res = await post({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'get_microblog_post', arguments: { id: 2083486896092087808 } } });
    const text = await res.text();
    const message = JSON.parse(text.startsWith('{') ? text : text.split('\n').find((line) => line.startsWith('data:'))!.slice(5));
    expect(message.result.isError).toBe(true);
    expect(message.result.structuredContent.error).toMatchObject({ code: 'invalid_request', details: { field: 'id' } });
    expect(message.result.structuredContent.error.message).toContain("Send 'id' as a string");
    expect(res.headers.get('x-credits-charged')).toBe('0');
  });
});

describe('an MCP argument named like a member a plain object inherits', () => {
  it('is refused by name as an unknown argument, as on REST', async () => {
    for (const [name, value] of [['constructor', 1], ['toString', 'x'], ['hasOwnProperty', true]] as const) {
      const res = await post({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_microblog_user', arguments: { user: 'simdevs', [name]: value } } });
      const text = await res.text();
      const message = JSON.parse(text.startsWith('{') ? text : text.split('\n').find((line) => line.startsWith('data:'))!.slice(5));
      // Before: passed as known arguments (`constructor` then answered a TypeError's text, "Cannot read properties of
      // undefined").
      expect([name, message.result.isError, message.result.structuredContent?.error]).toEqual([
        name,
        true,
        expect.objectContaining({ code: 'invalid_request', message: `Unknown argument '${name}'.`, details: { field: name } }),
      ]);
      expect(res.headers.get('x-credits-charged')).toBe('0');
    }
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

describe('a tools/call naming no tool', () => {
  /** The JSON-RPC answer of a POST: its JSON, or its events' (an array for a batch, which comes as a stream). */
  async function answers(res: Response): Promise<unknown> {
    const text = await res.text();
    if (text.startsWith('{') || text.startsWith('[')) return JSON.parse(text);
    const events = text.split('\n').filter((line) => line.startsWith('data:')).map((line) => JSON.parse(line.slice(5)) as unknown);
    return events.length === 1 ? events[0] : events;
  }
  const named = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

  it('answers the unknown-tool error for names a plain object inherits, as for any other unknown name', async () => {
    for (const version of [undefined, '2025-11-25']) {
      const unknown = await answers(await post(named(1, 'no_such_tool'), version));
      expect(unknown).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Tool no_such_tool not found' } });
      for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
        const res = await post(named(2, name), version);
        expect([name, version, res.status]).toEqual([name, version, 200]);
        // Before: "Tool __proto__ disabled" (the SDK looks tools up in a plain object).
        expect([name, version, await answers(res)]).toEqual([name, version, { jsonrpc: '2.0', id: 2, error: { code: -32602, message: `Tool ${name} not found` } }]);
        expect(res.headers.get('x-credits-charged')).toBe('0');
      }
    }
  });

  it('is the same error to the official client, on the 2026-07-28 protocol and the 2025 one', async () => {
    for (const mode of ['auto', 'legacy'] as const) {
      const client = await connectMcp(svc.url, key, mode);
      const refusal = (name: string) => client.callTool({ name, arguments: {} }).then(
        () => 'answered',
        (error: { code?: number; message?: string }) => [error.code, error.message?.replace(name, '<name>')],
      );
      const unknown = await refusal('no_such_tool');
      expect(unknown).toEqual([-32602, expect.stringContaining('Tool <name> not found')]);
      for (const name of ['__proto__', 'constructor', 'toString']) expect([mode, name, await refusal(name)]).toEqual([mode, name, unknown]);
      await client.close();
    }
  });

  it('answers it within a batch too, beside the other calls (protocol versions that still allow batches)', async () => {
    const res = await post([call(1), named(2, '__proto__'), named(3, 'no_such_tool')]);
    expect(res.status).toBe(200);
    const batch = (await answers(res)) as Array<{ id: number; result?: { isError?: boolean }; error?: unknown }>;
    expect(batch.map((answer) => answer.id).sort()).toEqual([1, 2, 3]);
    expect(batch.find((answer) => answer.id === 1)?.result?.isError).toBeFalsy();
    expect(batch.find((answer) => answer.id === 2)?.error).toEqual({ code: -32602, message: 'Tool __proto__ not found' });
    expect(batch.find((answer) => answer.id === 3)?.error).toEqual({ code: -32602, message: 'Tool no_such_tool not found' });
  });
});
