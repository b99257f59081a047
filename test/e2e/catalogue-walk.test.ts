import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../schema/catalogue/index.ts';
import { EXAMPLE_MONITOR_ID } from '../../schema/catalogue/monitors.ts';
import { EXAMPLE_DELIVERY_ID, EXAMPLE_WEBHOOK_ID } from '../../schema/catalogue/webhooks.ts';
import { withFragments } from '../../schema/zod-graphql.ts';
import { connectMcp } from '../support/mcp.ts';
import { restCall } from '../support/rest-call.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  // One key calls every operation three times: a ceiling the walk cannot reach (rate limits have their own suite).
  svc = await startTestService({ tiers: { free: { rateLimitPerMinute: 1_000_000, maxMonitors: 1_000, maxWebhooks: 1_000 } } });
  ({ key } = await svc.newKey({ scopes: ['read:social', 'usage:read', 'monitors:write', 'webhooks:write'] }));
});
afterAll(async () => {
  await svc?.close();
});

/**
 * The example, with the ids that stand for the caller's own monitor, webhook or delivery replaced by ones made for
 * this call (each call gets its own, since some examples delete what they name).
 */
async function exampleOf(op: (typeof OPERATIONS)[number]): Promise<Record<string, unknown>> {
  const example = { ...(op.example as Record<string, unknown>) };
  if (example.id === EXAMPLE_MONITOR_ID) {
    example.id = (await svc.request('POST', '/v1/monitors', { key, body: { name: 'walk', target: { kind: 'search', keywords: 'rust' } } })).body.data.id;
  } else if (example.id === EXAMPLE_WEBHOOK_ID || example.id === EXAMPLE_DELIVERY_ID) {
    const webhookId = (await svc.request('POST', '/v1/webhooks', { key, body: { name: 'walk', url: 'https://hooks.example.com/walk' } })).body.data.id;
    example.id = example.id === EXAMPLE_WEBHOOK_ID ? webhookId : (await svc.request('POST', `/v1/webhooks/${webhookId}/test`, { key })).body.data.id;
  }
  return example;
}

async function restCallOf(op: (typeof OPERATIONS)[number]) {
  return restCall(svc, key, op, await exampleOf(op));
}

describe('every catalogue operation answers on all three surfaces', () => {
  it('has unique operation ids, GraphQL fields, tools and REST routes', () => {
    for (const pick of [(op: (typeof OPERATIONS)[number]) => op.operationId, (op: (typeof OPERATIONS)[number]) => op.tool, (op: (typeof OPERATIONS)[number]) => op.graphql.field, (op: (typeof OPERATIONS)[number]) => `${op.rest.method} ${op.rest.path}`]) {
      const values = OPERATIONS.map(pick);
      expect(new Set(values).size).toBe(values.length);
    }
  });

  it.each(OPERATIONS.map((op) => [op.operationId, op] as const))('%s over REST', async (_id, op) => {
    const res = await restCallOf(op);
    expect(res.status, JSON.stringify(res.body)).toBe(op.rest.successStatus ?? 200);
    if (op.rest.envelope !== false) expect(res.body.meta.requestId).toBe(res.headers.get('x-request-id'));
  });

  it.each(OPERATIONS.map((op) => [op.operationId, op] as const))('%s over GraphQL', async (_id, op) => {
    const res = await svc.graphql(withFragments(op.graphql.document), await exampleOf(op), key);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    expect(res.body.data[op.graphql.field]).toBeDefined();
  });

  it.each(OPERATIONS.map((op) => [op.operationId, op] as const))('%s over MCP', async (_id, op) => {
    const client = await connectMcp(svc.url, key);
    try {
      const result = await client.callTool({ name: op.tool, arguments: await exampleOf(op) });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});

describe('/openapi.json', () => {
  let document: any;
  beforeAll(async () => {
    document = (await svc.request('GET', '/openapi.json')).body;
  });

  it('says that request bodies refuse unknown members', () => {
    const bodies = Object.values(document.paths as Record<string, Record<string, any>>)
      .flatMap((path) => Object.values(path))
      .flatMap((operation) => (operation.requestBody ? [operation.requestBody.content['application/json'].schema] : []));
    expect(bodies.length).toBeGreaterThan(5);
    for (const schema of bodies) expect(schema.additionalProperties).toBe(false);
  });

  it('is OpenAPI 3.1.0 with one {base_url} server, bearer security and a build version', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toHaveLength(1);
    expect(document.servers[0].url).toBe('{base_url}');
    expect(document.components.securitySchemes.bearerAuth).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(document.info.version).toMatch(/^[A-Za-z0-9]+-\d{8}T\d{6}Z$/);
  });

  it('lists every catalogue operation with x-svc-billing', () => {
    for (const op of OPERATIONS) {
      const path = op.rest.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      const entry = document.paths[path]?.[op.rest.method.toLowerCase()];
      expect(entry?.operationId, `${op.operationId} at ${path}`).toBe(op.operationId);
      expect(entry['x-svc-billing']).toEqual({
        minimumCredits: op.billing.minimumCredits,
        rateLimitWeight: op.billing.rateLimitWeight,
        units: op.billing.units.map((unit) => ({ unit, credits: expect.any(Number) })),
      });
    }
  });

  it('types every meta member and publishes each operation\'s error statuses', () => {
    const lookup = document.paths['/v1/forum/lookup'].post.responses['200'].content['application/json'].schema.properties.meta;
    expect(lookup.properties.missing).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(lookup.required).toEqual(['requestId', 'missing']);
    const search = document.paths['/v1/forum/search/subforums'].post.responses['200'].content['application/json'].schema.properties.meta;
    expect(search.properties.nextCursor.type).toEqual(['string', 'null']);
    expect(search.properties.omittedNsfw).toMatchObject({ type: 'integer', minimum: 0 });
    // Every keyed operation lists 503: its key is checked against the database (`not_ready` while it is unreachable).
    expect(Object.keys(document.paths['/v1/limits'].get.responses).sort()).toEqual(['200', '400', '401', '402', '403', '429', '500', '503']);
    expect(Object.keys(document.paths['/v1/usage'].get.responses).sort()).toEqual(['200', '400', '401', '402', '403', '404', '429', '500', '503']);
    // 409: a monitor's schedule held by another change (schedule_busy); a delivery of a disabled webhook.
    expect(Object.keys(document.paths['/v1/monitors/{id}'].delete.responses).sort()).toEqual(['200', '400', '401', '402', '403', '404', '409', '429', '500', '503']);
    expect(Object.keys(document.paths['/v1/webhook-deliveries/{id}/redeliver'].post.responses)).toContain('409');
    expect(document.paths['/v1/monitors/{id}'].patch.responses).toHaveProperty('503');
    expect(Object.keys(document.paths['/v1/forum/posts/{id}'].get.responses).sort()).toEqual(['200', '400', '401', '402', '403', '404', '429', '500', '503']);
    // An operation that takes a body also lists the listener's refusals of one it cannot read.
    expect(Object.keys(document.paths['/v1/webhooks'].post.responses).sort()).toEqual(['201', '400', '401', '402', '403', '409', '413', '415', '429', '500', '503']);
  });

  it('passes the Redocly OpenAPI linter', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(document));
      const result = await promisify(execFile)(join(process.cwd(), 'node_modules/.bin/redocly'), ['lint', file, '--format=stylish'], { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } }).catch((error: { stdout: string; stderr: string; code: number }) => error);
      expect('code' in result ? `${result.stdout}\n${result.stderr}` : '').toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
