import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * The one CORS policy (service/cors.ts, docs/api-conventions.md "Browsers (CORS)"): /graphql and /v1 answer any
 * origin without credentials; /mcp only SVC_MCP_ALLOWED_ORIGINS (the test service allows https://allowed.example).
 */
let svc: TestService;
let key: string;
const FOREIGN = 'http://evil.example';
const ALLOWED = 'https://allowed.example';

beforeAll(async () => {
  svc = await startTestService();
  ({ key } = await svc.newKey({ scopes: ['read:social', 'usage:read'] }));
});
afterAll(async () => {
  await svc?.close();
});

const preflight = (path: string, origin: string, method = 'POST') =>
  fetch(`${svc.url}${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type, idempotency-key' } });

const mcpCall = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } };

describe('CORS', () => {
  it.each([
    ['/graphql', 'POST'],
    ['/v1/forum/lookup', 'POST'],
    ['/v1/monitors/m_1', 'PATCH'],
  ])('a preflight for %s from any origin is 204: any origin, no credentials, the API’s headers', async (path, method) => {
    const res = await preflight(path, FOREIGN, method);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('access-control-allow-methods')).toContain(method);
    expect(res.headers.get('x-credits-charged')).toBe('0');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/authorization.*content-type.*idempotency-key.*x-max-credits.*x-dry-run/);
  });

  it('answers GraphQL and REST calls from any origin with *, no credentials, and the credit headers exposed', async () => {
    const graphql = await fetch(`${svc.url}/graphql`, {
      method: 'POST',
      headers: { origin: FOREIGN, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ whoami { keyId } }' }),
    });
    const rest = await fetch(`${svc.url}/v1/whoami`, { headers: { origin: FOREIGN, authorization: `Bearer ${key}` } });
    const refused = await fetch(`${svc.url}/v1/whoami`, { headers: { origin: FOREIGN } });
    for (const res of [graphql, rest, refused]) {
      await res.text();
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(res.headers.get('access-control-expose-headers')).toMatch(/x-credits-charged.*x-credits-remaining.*x-request-id.*retry-after/);
    }
    expect([graphql.status, rest.status, refused.status]).toEqual([200, 200, 401]);
  });

  it('serves /mcp to an allowed origin only: echoed with Vary, no credentials; another origin is refused without CORS headers', async () => {
    const allowedPreflight = await preflight('/mcp', ALLOWED);
    expect(allowedPreflight.status).toBe(204);
    expect(allowedPreflight.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(allowedPreflight.headers.get('vary')).toBe('Origin');
    expect(allowedPreflight.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version');

    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const allowed = await fetch(`${svc.url}/mcp`, { method: 'POST', headers: { ...headers, origin: ALLOWED }, body: JSON.stringify(mcpCall) });
    await allowed.text();
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();

    for (const res of [await preflight('/mcp', FOREIGN), await fetch(`${svc.url}/mcp`, { method: 'POST', headers: { ...headers, origin: FOREIGN }, body: JSON.stringify(mcpCall) })]) {
      await res.text();
      expect(res.status).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('adds nothing to the dashboard, and nothing when no Origin is sent', async () => {
    const dashboard = await fetch(`${svc.url}/dashboard/sign-in`, { headers: { origin: FOREIGN } });
    const plain = await fetch(`${svc.url}/v1/whoami`, { headers: { authorization: `Bearer ${key}` } });
    for (const res of [dashboard, plain]) {
      await res.text();
      expect([...res.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
  });
});
