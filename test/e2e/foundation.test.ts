import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeySecret } from '../../adapters/identity/key-material.ts';
import { connectMcp } from '../support/mcp.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
/** The service's clock runs this far ahead of the real one (key expiry is tested by moving it, not by waiting). */
let clockOffsetMs = 0;

beforeAll(async () => {
  svc = await startTestService({ now: () => new Date(Date.now() + clockOffsetMs) });
});
afterAll(async () => {
  await svc?.close();
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('system endpoints', () => {
  it('GET /health answers without authentication in the health body shape', async () => {
    const res = await svc.request('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', service: 'conversation-data-service', version: 'test0000-20260101T000000Z', timestamp: expect.stringMatching(ISO) });
    expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f-]{36}$/);
  });

  it('GET /ready reports ok while the database answers', async () => {
    const res = await svc.request('GET', '/ready');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(Object.keys(res.body).sort()).toEqual(['service', 'status', 'timestamp', 'version']);
  });

  it('keeps a well-formed client request id and replaces a malformed one', async () => {
    const kept = await svc.request('GET', '/health', { headers: { 'x-request-id': 'client-trace-1234' } });
    expect(kept.headers.get('x-request-id')).toBe('client-trace-1234');
    const replaced = await svc.request('GET', '/health', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('whoami and API keys', () => {
  it('reports the key, its scopes and workspace in the envelope, free of charge', async () => {
    const { key, keyId, workspaceId } = await svc.newKey({ scopes: ['read:forum', 'monitors:write'] });
    expect(key).toMatch(/^svc_live_[A-Za-z0-9_-]{22,}$/);
    const res = await svc.request('GET', '/v1/whoami', { key });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ keyId, label: 'live', scopes: ['read:forum', 'monitors:write'], createdAt: expect.stringMatching(ISO), expiresAt: null, workspaceId });
    expect(res.body.meta.requestId).toBe(res.headers.get('x-request-id'));
    expect(res.headers.get('x-credits-charged')).toBe('0');
    expect(res.headers.get('x-credits-remaining')).toBe('5000');
  });

  it('labels test keys with the test prefix and reports expiry', async () => {
    const expiresAt = new Date(Date.now() + 90 * 86_400_000);
    const { key } = await svc.newKey({ label: 'test', expiresAt });
    expect(key.startsWith('svc_test_')).toBe(true);
    const res = await svc.request('GET', '/v1/whoami', { key });
    expect(res.body.data.label).toBe('test');
    expect(new Date(res.body.data.expiresAt).getTime()).toBe(expiresAt.getTime());
  });

  it.each([
    ['missing', undefined, 'missing'],
    ['malformed header', 'Token abc', 'malformed'],
    ['malformed key', 'Bearer not-a-key', 'malformed'],
    ['unknown key', `Bearer ${generateKeySecret('live').secret}`, 'unknown'],
  ])('401 for a %s key', async (_name, authorization, reason) => {
    const res = await svc.request('GET', '/v1/whoami', { headers: authorization ? { authorization } : {} });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 'unauthenticated', retryable: false, details: { reason } });
    expect(res.body.meta.requestId).toEqual(expect.any(String));
  });

  it('401 the moment a key expires, with no grace period', async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const { key } = await svc.newKey({ expiresAt });
    clockOffsetMs = 55_000;
    expect((await svc.request('GET', '/v1/whoami', { key })).status).toBe(200);
    clockOffsetMs = 60_000 + 1_000;
    const res = await svc.request('GET', '/v1/whoami', { key });
    clockOffsetMs = 0;
    expect(res.status).toBe(401);
    expect(res.body.error.details.reason).toBe('expired');
  });

  it('revocation through the operator API takes effect immediately', async () => {
    const { key, keyId } = await svc.newKey();
    expect((await svc.request('GET', '/v1/whoami', { key })).status).toBe(200);
    const revoked = await svc.operator('POST', `/operator/keys/${keyId}/revoke`);
    expect(revoked.status).toBe(200);
    const res = await svc.request('GET', '/v1/whoami', { key });
    expect(res.status).toBe(401);
    expect(res.body.error.details.reason).toBe('revoked');
  });
});

describe('REST envelope and errors', () => {
  it('404 envelope for an unknown /v1 path', async () => {
    const res = await svc.request('GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String), retryable: false, details: { path: '/v1/nothing-here' } }, meta: { requestId: expect.any(String) } });
  });

  it('405 with Allow for a wrong method', async () => {
    const res = await svc.request('DELETE', '/v1/whoami');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(res.body.error.code).toBe('method_not_allowed');
  });

  it('400 naming an unknown query parameter', async () => {
    const { key } = await svc.newKey();
    const res = await svc.request('GET', '/v1/whoami?verbose=1', { key });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'verbose' } });
  });

  it('413 for a body over 1 MiB, before reading it', async () => {
    const res = await svc.request('POST', '/v1/whoami', { rawBody: 'x'.repeat(1024 * 1024 + 1), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });
});

describe('GraphQL surface', () => {
  it('answers whoami with credits in extensions and headers', async () => {
    const { key, keyId } = await svc.newKey();
    const res = await svc.graphql('{ whoami { keyId label } }', undefined, key);
    expect(res.status).toBe(200);
    expect(res.body.data.whoami).toEqual({ keyId, label: 'live' });
    expect(res.body.extensions.credits).toEqual({ charged: 0, remaining: 5000, worstCase: 0 });
    expect(res.headers.get('x-credits-charged')).toBe('0');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('maps a missing key to 401 with the catalogue code', async () => {
    const res = await svc.graphql('{ whoami { keyId } }');
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'unauthenticated', retryable: false });
  });

  it('rejects a malformed query with 400 invalid_request', async () => {
    const res = await svc.graphql('{ whoami { ', undefined);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('invalid_request');
  });

  it('serves GraphiQL on GET', async () => {
    const res = await svc.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(String(res.body)).toContain('graphiql');
  });

  it('lets system fields through without a key', async () => {
    const res = await svc.graphql('{ health { status } readiness { status } }');
    expect(res.body.data).toEqual({ health: { status: 'ok' }, readiness: { status: 'ok' } });
  });
});

describe('MCP surface', () => {
  it.each(['auto', 'legacy'] as const)('the official client (%s negotiation) lists tools and calls whoami', async (mode) => {
    const { key, keyId } = await svc.newKey();
    const client = await connectMcp(svc.url, key, mode);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['whoami', 'get_health', 'get_readiness']));
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { data: { keyId: string } }).data.keyId).toBe(keyId);
    } finally {
      await client.close();
    }
  });

  it('refuses a connection without a valid key with 401', async () => {
    const res = await svc.request('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(res.status).toBe(401);
    // The challenge points an OAuth client at the sign-in (RFC 9728); an API key client just sends its key.
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${svc.url}/.well-known/oauth-protected-resource/mcp", scope="read:social usage:read"`);
    expect(res.body.error.code).toBe('unauthenticated');
  });
});

describe('REST input types', () => {
  it.each([
    [{ query: 'x', includeNsfw: 'yes' }, 'includeNsfw', 'boolean'],
    [{ query: 'x', limit: '5' }, 'limit', 'integer'],
    [{ query: 'x', limit: 5.5 }, 'limit', 'integer'],
    [{ query: ['x'] }, 'query', 'string'],
  ])('400 naming the field for %j', async (body, field, expected) => {
    const { key } = await svc.newKey();
    const res = await svc.request('POST', '/v1/forum/search/subforums', { key, body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', details: { field, expected } });
  });

  it('does not turn a single value into a list', async () => {
    const { key } = await svc.newKey();
    const res = await svc.request('POST', '/v1/forum/lookup', { key, body: { posts: 'abc' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toMatchObject({ field: 'posts', expected: 'array' });
  });

  it('names the element of a list that has the wrong type', async () => {
    const { key } = await svc.newKey();
    const res = await svc.request('POST', '/v1/forum/lookup', { key, body: { posts: ['abc', 7] } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toMatchObject({ field: 'posts[1]', expected: 'string' });
  });

  it('400 invalid_json for a malformed body and 415 for a non-JSON content type', async () => {
    const { key } = await svc.newKey();
    const malformed = await svc.request('POST', '/v1/forum/search/subforums', { key, rawBody: '{"query": ', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'invalid_json', details: { field: 'body' } });
    const form = await svc.request('POST', '/v1/forum/search/subforums', { key, rawBody: 'query=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
  });

  it('403 naming the scope for a key without it', async () => {
    const { key } = await svc.newKey({ scopes: ['read:microblog'] });
    const res = await svc.request('POST', '/v1/forum/search/subforums', { key, body: { query: 'x' } });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'insufficient_scope', details: { requiredScope: 'read:forum' } });
  });
});

describe('GraphQL body limit', () => {
  async function chunked(body: string): Promise<{ status: number; text: string }> {
    const { request } = await import('node:http');
    const url = new URL(`${svc.url}/graphql`);
    return new Promise((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: '/graphql', method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      for (let i = 0; i < body.length; i += 64 * 1024) req.write(body.slice(i, i + 64 * 1024));
      req.end();
    });
  }

  it('413 for a declared Content-Length over 1 MiB', async () => {
    const res = await svc.request('POST', '/graphql', { rawBody: `{"query":"${' '.repeat(1024 * 1024)}{ health { status } }"}`, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.body.errors[0].extensions.code).toBe('payload_too_large');
  });

  it('413 for a chunked body that grows past 1 MiB, and a small chunked body still works', async () => {
    const big = await chunked(`{"query":"${' '.repeat(1024 * 1024 + 10)}{ health { status } }"}`);
    expect(big.status).toBe(413);
    const small = await chunked(JSON.stringify({ query: '{ health { status } }' }));
    expect(small.status).toBe(200);
    expect(JSON.parse(small.text).data.health.status).toBe('ok');
  });
});

describe('null arguments', () => {
  it('GraphQL reads an explicit null for an optional argument as its absence', async () => {
    const { key } = await svc.newKey();
    const inline = await svc.graphql('{ searchSubforums(query: "forum", cursor: null, limit: null) { nextCursor } }', undefined, key);
    expect(inline.body.errors).toBeUndefined();
    const variable = await svc.graphql('query($c: String) { searchSubforums(query: "forum", cursor: $c) { nextCursor } }', { c: null }, key);
    expect(variable.body.errors).toBeUndefined();
  });

  it('REST: null is absence for an optional member and a 400 naming a required one', async () => {
    const { key } = await svc.newKey();
    expect((await svc.request('POST', '/v1/forum/search/subforums', { key, body: { query: 'forum', cursor: null } })).status).toBe(200);
    const res = await svc.request('POST', '/v1/forum/search/subforums', { key, body: { query: null } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toMatchObject({ field: 'query', expected: 'string', got: 'null' });
  });
});

describe('credit headers on requests refused before any operation ran', () => {
  it.each([
    ['an unknown path', 'GET', '/v1/nothing', undefined],
    ['an unknown query parameter', 'GET', '/v1/whoami?x=1', undefined],
    ['malformed JSON', 'POST', '/v1/forum/search', '{"query":'],
  ])('%s reports 0 charged and the balance left', async (_name, method, path, rawBody) => {
    const { key } = await svc.newKey();
    const res = await svc.request(method, path, { key, ...(rawBody ? { rawBody, headers: { 'content-type': 'application/json' } } : {}) });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers.get('x-credits-charged')).toBe('0');
    expect(res.headers.get('x-credits-remaining')).toBe('5000');
  });

  it('an unparsable GraphQL document too', async () => {
    const { key } = await svc.newKey();
    const res = await svc.graphql('{ whoami {', undefined, key);
    expect(res.status).toBe(400);
    expect(res.headers.get('x-credits-charged')).toBe('0');
    expect(res.headers.get('x-credits-remaining')).toBe('5000');
  });
});

describe('GraphQL request errors stay in the catalogue', () => {
  it('malformed GET variables are 400 invalid_json, not a 500', async () => {
    const res = await svc.request('GET', `/graphql?query=${encodeURIComponent('{ health { status } }')}&variables=${encodeURIComponent('{bad')}`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('invalid_json');
  });

  it('invalid POST JSON is invalid_json; validation errors carry invalid_request', async () => {
    const { key } = await svc.newKey();
    const bad = await svc.request('POST', '/graphql', { key, rawBody: '{"query":', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].extensions.code).toBe('invalid_json');
    // GraphQL over HTTP: 400 for application/graphql-response+json (200 for plain application/json).
    const invalid = await svc.request('POST', '/graphql', { key, body: { query: '{ whoamii { keyId } }' }, headers: { accept: 'application/graphql-response+json' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors[0].extensions).toMatchObject({ code: 'invalid_request', retryable: false });
  });

  it('a variable of the wrong type is a 400 naming it, not a 500', async () => {
    const { key } = await svc.newKey();
    const res = await svc.graphql('query($q: String!, $l: Int) { searchSubforums(query: $q, limit: $l) { nextCursor } }', { q: 'forum', l: 'two' }, key);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('invalid_request');
    expect(res.headers.get('x-credits-charged')).toBe('0');
  });

  it('a wrong method is 405 with Allow, a wrong media type 415 with a body', async () => {
    const put = await svc.request('PUT', '/graphql', { body: { query: '{ health { status } }' } });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST');
    expect(put.body.errors[0].extensions.code).toBe('method_not_allowed');
    const text = await svc.request('POST', '/graphql', { rawBody: '{ health { status } }', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.body.errors[0].extensions.code).toBe('unsupported_media_type');
    // Media types are case-insensitive (security review h, F5: before, 415 with no body from yoga).
    for (const type of ['APPLICATION/JSON', 'Application/Json; Charset=UTF-8']) {
      const shouted = await svc.request('POST', '/graphql', { rawBody: JSON.stringify({ query: '{ health { status } }' }), headers: { 'content-type': type } });
      expect(shouted.status).toBe(200);
      expect(shouted.body.data.health.status).toBe('ok');
    }
  });

  it('a response with data for some root fields is HTTP 200, the failed field keeping its code', async () => {
    const { key } = await svc.newKey();
    const res = await svc.graphql('{ whoami { label } forumPost(id: "zzzzzzzz9") { id } }', undefined, key);
    expect(res.status).toBe(200);
    expect(res.body.data.whoami.label).toBe('live');
    expect(res.body.errors[0].extensions.code).toBe('not_found');
  });

  it('a root field skipped by @skip is neither scope-checked nor run', async () => {
    const { key } = await svc.newKey({ scopes: ['usage:read'] });
    const res = await svc.graphql('query($s: Boolean!) { whoami { label } forumPost(id: "1a00001") @skip(if: $s) { id } }', { s: true }, key);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({ whoami: { label: 'live' } });
  });
});

describe('HTTP details', () => {
  it('a malformed Host header neither fails the request nor loses the request id', async () => {
    const { request } = await import('node:http');
    const url = new URL(svc.url);
    const result = await new Promise<{ status: number; id: string | undefined }>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: '/graphql', method: 'POST', headers: { host: 'a b', 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'x-request-id': 'client-trace-5678' } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, id: res.headers['x-request-id'] as string | undefined }));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ query: '{ health { status } }' }));
    });
    expect(result.status).toBe(200);
    expect(result.id).toBe('client-trace-5678');
  });

  it('HEAD is not served on /v1 (a billed GET would be charged for a body never sent)', async () => {
    const { key } = await svc.newKey();
    const res = await fetch(`${svc.url}/v1/whoami`, { method: 'HEAD', headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
  });

  it('the auth scheme is case-insensitive', async () => {
    const { key } = await svc.newKey();
    expect((await svc.request('GET', '/v1/whoami', { headers: { authorization: `bearer ${key}` } })).status).toBe(200);
  });
});

describe('MCP tool calls', () => {
  it('carry the credit headers on the HTTP response and refuse unknown arguments with the envelope', async () => {
    const { key } = await svc.newKey();
    const call = (args: Record<string, unknown>) =>
      svc.request('POST', '/mcp', {
        key,
        headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_subforums', arguments: args } },
      });
    const ok = await call({ query: 'forum', limit: 2 });
    expect(ok.status).toBe(200);
    expect(Number(ok.headers.get('x-credits-charged'))).toBeGreaterThan(0);
    expect(ok.headers.get('x-credits-remaining')).toMatch(/^\d+$/);

    const typo = await call({ query: 'forum', limitt: 2 });
    const typoResult = (typeof typo.body === 'string' ? JSON.parse(typo.body.split('data: ').pop()!) : typo.body).result;
    expect(typoResult.isError).toBe(true);
    expect(typoResult.structuredContent.error).toMatchObject({ code: 'invalid_request', details: { field: 'limitt' } });
    expect(typoResult._meta.credits.charged).toBe(0);

    const badType = await call({ query: 'forum', limit: 'two' });
    const badResult = (typeof badType.body === 'string' ? JSON.parse(badType.body.split('data: ').pop()!) : badType.body).result;
    expect(badResult.structuredContent.error).toMatchObject({ code: 'invalid_request' });
    // Like every other refusal (a bad value above), the unknown argument's reports the balance and the worst case of
    // the call without it, as a dry run of that call estimates it. Before: `{charged: 0}` alone.
    const remaining = Number(typo.headers.get('x-credits-remaining'));
    expect(badResult._meta.credits).toEqual({ charged: 0, remaining, worstCase: 101 });
    const dry = await call({ query: 'forum', dryRun: true });
    const worstCase = (typeof dry.body === 'string' ? JSON.parse(dry.body.split('data: ').pop()!) : dry.body).result.structuredContent.meta.estimate.worstCaseCredits;
    expect(typoResult._meta.credits).toEqual({ charged: 0, remaining, worstCase });
  });
});
