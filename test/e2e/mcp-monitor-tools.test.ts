import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../support/mcp.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

const MONITOR_READ = ['get_monitor', 'list_monitor_results', 'list_monitor_runs', 'list_monitors'];
const MONITOR_WRITE = ['create_monitor', 'delete_monitor', 'run_monitor', 'update_monitor'];
const WEBHOOK_READ = ['get_webhook', 'get_webhook_delivery', 'list_webhook_deliveries', 'list_webhooks'];
const WEBHOOK_WRITE = ['create_webhook', 'delete_webhook', 'redeliver_webhook_delivery', 'test_webhook', 'update_webhook'];

async function gatedTools(scopes: string[]): Promise<string[]> {
  const { key } = await svc.newKey({ scopes });
  const client = await connectMcp(svc.url, key);
  try {
    const { tools } = await client.listTools();
    return tools.map((tool) => tool.name).filter((name) => /monitor|webhook/.test(name)).sort();
  } finally {
    await client.close();
  }
}

/** Monitor and webhook tools exist only on connections granted that access; each tool needs the scope that grants it. */
describe('MCP monitor and webhook tools', () => {
  it.each([
    [['read:social', 'usage:read'], []],
    [['monitors:read'], MONITOR_READ],
    [['monitors:write'], [...MONITOR_READ, ...MONITOR_WRITE]],
    [['webhooks:read'], WEBHOOK_READ],
    [['read:social', 'monitors:write', 'webhooks:write'], [...MONITOR_READ, ...MONITOR_WRITE, ...WEBHOOK_READ, ...WEBHOOK_WRITE]],
  ])('a key with %j lists exactly its monitor and webhook tools', async (scopes, expected) => {
    expect(await gatedTools(scopes)).toEqual([...expected].sort());
  });
});

describe('a monitor target over MCP', () => {
  it('is described as closed (additionalProperties false in every kind) and an unknown member is refused by name', async () => {
    const { key } = await svc.newKey({ scopes: ['monitors:write'] });
    const client = await connectMcp(svc.url, key);
    try {
      const { tools } = await client.listTools();
      const create = tools.find((tool) => tool.name === 'create_monitor')!;
      const kinds = (create.inputSchema.properties!.target as { oneOf: { additionalProperties?: boolean }[] }).oneOf;
      expect(kinds).toHaveLength(7);
      expect(kinds.every((kind) => kind.additionalProperties === false)).toBe(true);
      const result = await client.callTool({ name: 'create_monitor', arguments: { name: 'm', target: { kind: 'subforum', subforum: 'programming', keyword: 'rust' } } });
      expect(result.isError).toBe(true);
      expect((result.structuredContent as { error: { code: string; details: { field: string } } }).error).toMatchObject({ code: 'invalid_request', details: { field: 'target.keyword' } });
      expect((await svc.request('GET', '/v1/monitors', { key })).body.data).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('a monitor or webhook tool the key does not see', () => {
  it.each([
    [['monitors:read'], 'create_monitor', 'monitors:write'],
    [['read:social'], 'list_monitors', 'monitors:read'],
    [['monitors:write'], 'redeliver_webhook_delivery', 'webhooks:write'],
  ])('a key with %j calling %s gets the 403 tool error naming %s, not "not found"', async (scopes, tool, scope) => {
    const { key } = await svc.newKey({ scopes });
    const client = await connectMcp(svc.url, key);
    try {
      const result = (await client.callTool({ name: tool, arguments: {} })) as { isError?: boolean; structuredContent?: any };
      expect(result.isError).toBe(true);
      expect(result.structuredContent.error).toMatchObject({ code: 'insufficient_scope', retryable: false, details: { requiredScope: scope } });
      expect(result.structuredContent.error.message).toContain(scope);
      // A name that is no tool at all is still the protocol's unknown tool.
      await expect(client.callTool({ name: 'create_monitors', arguments: {} })).rejects.toThrow(/not found/);
    } finally {
      await client.close();
    }
  });
});

describe('tool descriptions and schemas', () => {
  it('close every input schema at the top level, as unknown arguments are refused', async () => {
    const { key } = await svc.newKey({ scopes: ['read:social', 'usage:read', 'monitors:write', 'webhooks:write'] });
    const client = await connectMcp(svc.url, key);
    try {
      const { tools } = await client.listTools();
      expect(tools.filter((tool) => tool.inputSchema.additionalProperties !== false).map((tool) => tool.name)).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('say that the monitor calls are free but the runs they queue are charged, on MCP and in OpenAPI', async () => {
    const { key } = await svc.newKey({ scopes: ['monitors:write'] });
    const client = await connectMcp(svc.url, key);
    try {
      const { tools } = await client.listTools();
      for (const name of ['create_monitor', 'update_monitor', 'run_monitor']) {
        const description = tools.find((tool) => tool.name === name)!.description!;
        expect(description, name).not.toMatch(/\bFree;/);
        expect(description, name).toMatch(/The call itself is free; the runs it queues are charged when they execute, by what they read/);
      }
    } finally {
      await client.close();
    }
    const openapi = (await svc.request('GET', '/openapi.json')).body;
    expect(openapi.paths['/v1/monitors'].post.description).toMatch(/runs it queues are charged/);
    expect(openapi.paths['/v1/monitors/{id}/run'].post.description).toMatch(/runs it queues are charged/);
  });
});

describe('a JSON-RPC batch (protocol versions that still allow batches)', () => {
  /** The answers of a batch POST: its JSON array, or its events' messages. */
  async function batchAnswers(res: Response): Promise<Array<{ id: number; result?: any; error?: unknown }>> {
    const text = await res.text();
    if (text.startsWith('[')) return JSON.parse(text);
    return text.split('\n').filter((line) => line.startsWith('data:')).map((line) => JSON.parse(line.slice(5)));
  }
  const post = (key: string, body: unknown) => fetch(`${svc.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(body),
  });

  it('lists only the tools a single tools/list lists, even beside a call of a tool the key does not see', async () => {
    const { key } = await svc.newKey({ scopes: ['monitors:read'] });
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const hiddenCall = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_monitor', arguments: {} } };
    const alone = (await batchAnswers(await post(key, [list])))[0]!.result.tools.map((tool: { name: string }) => tool.name).sort();
    expect(alone).not.toContain('create_monitor');
    const res = await post(key, [list, hiddenCall]);
    expect(res.status).toBe(200);
    const answers = await batchAnswers(res);
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2]);
    // Before: the batch's call of create_monitor made the listing show it.
    expect(answers.find((answer) => answer.id === 1)!.result.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(alone);
    // The call itself is still the pipeline's 403 naming the scope, as when sent alone.
    const called = answers.find((answer) => answer.id === 2)!.result;
    expect(called.isError).toBe(true);
    expect(called.structuredContent.error).toMatchObject({ code: 'insufficient_scope', details: { requiredScope: 'monitors:write' } });
    expect(res.headers.get('x-credits-charged')).toBe('0');
  });
});
