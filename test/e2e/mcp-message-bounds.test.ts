import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_MESSAGES } from '../../schema/catalogue/mcp-messages.ts';
import { connectMcp } from '../support/mcp.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Every JSON-RPC message of an MCP request weighs against the rate limit, batches are bounded, and `tools/list` is
 * answered from a list kept per scope set (review F3: a batch of 100 `tools/list` answered 35 MB, unrated).
 */
const CEILING = 30;
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ tiers: { free: { rateLimitPerMinute: CEILING } } });
});
afterAll(async () => {
  await svc?.close();
});

const list = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });

function post(key: string, body: unknown) {
  return fetch(`${svc.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(body),
  });
}

/** The JSON-RPC answers of a POST: its JSON, or its events' data. */
async function answersOf(res: Response): Promise<any[]> {
  const text = await res.text();
  const json = text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text.split('\n').filter((line) => line.startsWith('data:')).map((line) => JSON.parse(line.slice(5)));
  return Array.isArray(json) ? json : [json];
}

describe('JSON-RPC messages on /mcp', () => {
  it(`refuses a batch of more than ${MCP_MESSAGES.maxPerBatch} messages with a JSON-RPC error naming the limit, charging nothing`, async () => {
    const { key } = await svc.newKey();
    const refused = await post(key, Array.from({ length: MCP_MESSAGES.maxPerBatch + 1 }, (_, i) => list(i)));
    expect(refused.status).toBe(400);
    expect(refused.headers.get('x-credits-charged')).toBe('0');
    const [error] = await answersOf(refused);
    expect(error).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, data: { limit: MCP_MESSAGES.maxPerBatch, messages: MCP_MESSAGES.maxPerBatch + 1 } } });
    expect(error.error.message).toContain(`at most ${MCP_MESSAGES.maxPerBatch} messages`);
    // Before: 200 with 11 lists. At the limit every message is answered.
    const full = await post(key, Array.from({ length: MCP_MESSAGES.maxPerBatch }, (_, i) => list(i)));
    expect(full.status).toBe(200);
    const answers = await answersOf(full);
    expect(answers.map((answer) => answer.id).sort((a, b) => a - b)).toEqual(Array.from({ length: MCP_MESSAGES.maxPerBatch }, (_, i) => i));
    for (const answer of answers) expect(answer.result.tools.length).toBeGreaterThan(10);
  });

  it('weighs every message against the rate limit, tools/list and initialize included', async () => {
    const { key } = await svc.newKey();
    const batch = Array.from({ length: MCP_MESSAGES.maxPerBatch }, (_, i) => list(i));
    const batches = Math.floor(CEILING / (MCP_MESSAGES.maxPerBatch * MCP_MESSAGES.rateLimitWeight));
    for (let i = 0; i < batches; i++) expect((await post(key, batch)).status).toBe(200);
    // Before: nothing was counted, and the next call was served.
    const whoami = await svc.request('GET', '/v1/whoami', { key });
    expect(whoami.status).toBe(429);
    const refused = await post(key, list(1));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('x-credits-charged')).toBe('0');
    expect((await refused.json()).error).toMatchObject({ code: 'rate_limited', details: { weight: MCP_MESSAGES.rateLimitWeight } });
    const init = await post(key, { jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    expect(init.status).toBe(429);
  });

  it('weighs a tools/call that reaches no operation (a tool that does not exist, or no name) as any other message', async () => {
    const { key } = await svc.newKey();
    for (let i = 0; i < CEILING / MCP_MESSAGES.rateLimitWeight; i++) {
      const params = i % 2 ? { name: `no_such_tool_${i}`, arguments: {} } : { arguments: {} };
      const res = await post(key, { jsonrpc: '2.0', id: i, method: 'tools/call', params });
      expect(res.status).toBe(200);
      await res.text();
    }
    // Before: the pipeline never saw these calls, nothing was counted, and the next call was served.
    expect((await svc.request('GET', '/v1/whoami', { key })).status).toBe(429);
    // A tool call refused by the limit is a tool error the model reads, with the wait on the HTTP answer as REST sends
    // it (spec review h, M1: before, no Retry-After).
    const refused = await post(key, { jsonrpc: '2.0', id: 'late', method: 'tools/call', params: { name: 'get_usage', arguments: {} } });
    expect(refused.status).toBe(200);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await answersOf(refused))[0].result).toMatchObject({ isError: true, structuredContent: { error: { code: 'rate_limited' } } });
  });

  it('answers tools/list from the list of the caller’s scope set, each with its own id, as the SDK would', async () => {
    const reader = (await svc.newKey()).key;
    const monitors = (await svc.newKey({ scopes: ['read:social', 'usage:read', 'monitors:read', 'monitors:write'] })).key;
    const first = (await answersOf(await post(reader, list('a'))))[0];
    expect(first).toMatchObject({ jsonrpc: '2.0', id: 'a' });
    const again = (await answersOf(await post(reader, list(7))))[0];
    expect(again).toEqual({ ...first, id: 7 });
    const names = (answer: any) => answer.result.tools.map((tool: { name: string }) => tool.name);
    expect(names(first)).not.toContain('create_monitor');
    // Another scope set has a list of its own.
    const withMonitors = (await answersOf(await post(monitors, list(1))))[0];
    expect(names(withMonitors)).toContain('create_monitor');
    expect(names((await answersOf(await post(reader, list(2))))[0])).not.toContain('create_monitor');
    // Beside other messages in a batch, and to the official client on both protocols.
    const mixed = await answersOf(await post(reader, [list(1), { jsonrpc: '2.0', id: 2, method: 'ping' }]));
    expect(mixed.find((answer) => answer.id === 1)).toEqual({ ...first, id: 1 });
    expect(mixed.find((answer) => answer.id === 2)).toMatchObject({ result: {} });
    for (const mode of ['auto', 'legacy'] as const) {
      const client = await connectMcp(svc.url, monitors, mode);
      const listed = [(await client.listTools()).tools.map((tool) => tool.name), (await client.listTools()).tools.map((tool) => tool.name)];
      expect(listed[1]).toEqual(listed[0]);
      expect(listed[0]).toEqual(names(withMonitors));
      await client.close();
    }
  });
});
