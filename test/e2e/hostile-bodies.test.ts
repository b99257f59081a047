import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_JSON_DEPTH } from '../../core/json-depth.ts';
import { FORM_BODY_BYTES, FORM_FIELDS_MAX } from '../../dashboard/dashboard-http.ts';
import { KEYLESS_GRAPHQL_BODY_BYTES } from '../../service/http-server.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** Bodies an unknown caller could send to make the process parse at its expense (docs/api-conventions.md "Requests"). */
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

const deep = (levels: number) => `{"query":"{ health { status } }","x":${'['.repeat(levels)}${']'.repeat(levels)}}`;
const TOO_DEEP = { field: 'body', limit: 'depth', maximum: MAX_JSON_DEPTH };
const json = { 'content-type': 'application/json' };

/** Counts JSON.parse calls on `body` itself (the service runs in this process). */
function parsesOf(body: string): { count: number } {
  const seen = { count: 0 };
  const parse = JSON.parse;
  vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    if (text === body) seen.count++;
    return parse(text, reviver);
  });
  return seen;
}

describe('a body nested deeper than the limit', () => {
  it('REST: 400 naming the body and the limit, never parsed, with or without a key', async () => {
    const { key } = await svc.newKey();
    const body = deep(100_000);
    const parses = parsesOf(body);
    for (const withKey of [undefined, key]) {
      const res = await svc.request('POST', '/v1/forum/search', { key: withKey, rawBody: body, headers: json });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', details: TOO_DEEP });
      expect(res.headers.get('x-credits-charged')).toBe('0');
    }
    expect(parses.count).toBe(0);
  });

  it('GraphQL: 400 in the GraphQL shape, never parsed, on the common path and through yoga (a browser’s request)', async () => {
    const { key } = await svc.newKey();
    const body = deep(MAX_JSON_DEPTH + 1);
    const parses = parsesOf(body);
    for (const origin of [undefined, 'https://app.example']) {
      const res = await svc.request('POST', '/graphql', { key, rawBody: body, headers: { ...json, ...(origin ? { origin } : {}) } });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'invalid_request', details: TOO_DEEP });
    }
    expect(parses.count).toBe(0);
  });

  it('MCP: 400 in the JSON-RPC shape of a body that does not parse, never parsed, with or without a key', async () => {
    const { key } = await svc.newKey();
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}}`;
    const parses = parsesOf(body);
    for (const withKey of [undefined, key]) {
      const res = await svc.request('POST', '/mcp', { key: withKey, rawBody: body, headers: { ...json, accept: 'application/json, text/event-stream' } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700, data: TOO_DEEP } });
      expect(res.headers.get('x-credits-charged')).toBe('0');
    }
    expect(parses.count).toBe(0);
  });

  it('at the limit, the body is parsed and answered as before', async () => {
    const res = await svc.request('POST', '/graphql', { rawBody: deep(MAX_JSON_DEPTH - 1), headers: json });
    expect(res.body.errors[0].extensions.details ?? {}).not.toMatchObject({ limit: 'depth' });
  });
});

describe('REST checks the key before it parses a body', () => {
  it('an unknown key with a body that would be refused for its members is 401, its body never parsed', async () => {
    const body = JSON.stringify({ query: 'x', unknownMember: 'y'.repeat(100_000) });
    const parses = parsesOf(body);
    const res = await svc.request('POST', '/v1/forum/search', { key: 'svc_live_unknown0000000000000000000000', rawBody: body, headers: json });
    expect(res.status).toBe(401);
    expect(parses.count).toBe(0);
  });

  it('a valid key still gets the member named', async () => {
    const { key } = await svc.newKey();
    const res = await svc.request('POST', '/v1/forum/search', { key, body: { query: 'x', unknownMember: 'y' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toMatchObject({ field: 'unknownMember' });
  });
});

describe('GraphQL without a valid key takes a small body', () => {
  const padded = (bytes: number) => JSON.stringify({ query: `{ health { status } }${' '.repeat(bytes)}` });

  it('over the keyless limit: 413 naming the limit, declared or chunked, with no key or an unknown one', async () => {
    const body = padded(KEYLESS_GRAPHQL_BODY_BYTES);
    for (const key of [undefined, 'svc_live_unknown0000000000000000000000']) {
      const res = await svc.request('POST', '/graphql', { key, rawBody: body, headers: json });
      expect(res.status).toBe(413);
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'payload_too_large', details: { field: 'body', maximum: KEYLESS_GRAPHQL_BODY_BYTES } });
      expect(res.body.errors[0].message).toContain('Without a valid API key');
    }
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(body));
        controller.close();
      },
    });
    const res = await fetch(`${svc.url}/graphql`, { method: 'POST', headers: json, body: chunked, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
  });

  it('within it, a keyless request is served; with a valid key, a body past it is too', async () => {
    const small = await svc.request('POST', '/graphql', { rawBody: padded(1000), headers: json });
    expect(small.body.data.health.status).toBe('ok');
    const { key } = await svc.newKey();
    const large = await svc.request('POST', '/graphql', { key, rawBody: padded(4 * KEYLESS_GRAPHQL_BODY_BYTES), headers: json });
    expect(large.status).toBe(200);
    expect(large.body.data.health.status).toBe('ok');
  });
});

describe('MCP parses an authenticated body once', () => {
  it('a tool call is parsed once, for the scope check, the stream check and the SDK alike', async () => {
    const { key } = await svc.newKey();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
    const parses = parsesOf(body);
    const res = await svc.request('POST', '/mcp', { key, rawBody: body, headers: { ...json, accept: 'application/json, text/event-stream' } });
    expect(res.status).toBe(200);
    expect(String(res.body)).toContain('"structuredContent":{"data":{"keyId"');
    expect(parses.count).toBe(1);
  });
});

/** Counts URLSearchParams built from `body` itself (the dashboard's form parser; the service runs in this process). */
function formParsesOf(body: string): { count: number } {
  const seen = { count: 0 };
  vi.stubGlobal(
    'URLSearchParams',
    class extends URLSearchParams {
      constructor(init?: ConstructorParameters<typeof URLSearchParams>[0]) {
        if (init === body) seen.count++;
        super(init);
      }
    },
  );
  return seen;
}

/** The answer to a request whose headers declare a body that is never sent: only an answer given unread can come. */
function answerUnread(path: string, headers: Record<string, string>): Promise<{ status: number; connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${svc.url}${path}`, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode!, connection: res.headers.connection, body: Buffer.concat(chunks).toString('utf8') });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}

const form = { 'content-type': 'application/x-www-form-urlencoded' };
/** The review's repro: 520,000 one-letter fields, about 1 MiB. */
const MANY_FIELDS = Array(520_000).fill('a').join('&');

describe('a dashboard body is small and its form has few fields, whoever sends it', () => {
  it('over the limit: 413 and the connection closed, before any of the body arrives', async () => {
    for (const path of ['/dashboard/nope', '/dashboard/sign-in']) {
      const answer = await answerUnread(path, { ...form, 'content-length': String(Buffer.byteLength(MANY_FIELDS)) });
      expect([path, answer.status, answer.connection]).toEqual([path, 413, 'close']);
      expect(answer.body).toContain(`over ${FORM_BODY_BYTES / 1024} KiB`);
    }
  });

  it('a chunked body is cut off at the limit, never parsed', async () => {
    const parses = formParsesOf(MANY_FIELDS);
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(MANY_FIELDS));
        controller.close();
      },
    });
    const res = await fetch(`${svc.url}/dashboard/sign-in`, { method: 'POST', headers: form, body: chunked, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
    expect(parses.count).toBe(0);
  });

  it(`a form of more than ${FORM_FIELDS_MAX} fields within the limit: 400 saying so, never parsed; ${FORM_FIELDS_MAX} are read as before`, async () => {
    const fields = (count: number) => ['email=a%40example.com', 'password=wrong-password', ...Array(count - 2).fill('x=1')].join('&');
    const over = fields(FORM_FIELDS_MAX + 1);
    const parses = formParsesOf(over);
    const refused = await svc.request('POST', '/dashboard/sign-in', { rawBody: over, headers: form });
    expect(refused.status).toBe(400);
    expect(String(refused.body)).toContain(`more than ${FORM_FIELDS_MAX} fields`);
    expect(parses.count).toBe(0);
    // At the bound the form is parsed and goes on to the page's own checks (here: no CSRF token).
    const within = fields(FORM_FIELDS_MAX);
    const read = formParsesOf(within);
    const answered = await svc.request('POST', '/dashboard/sign-in', { rawBody: within, headers: form });
    expect(answered.status).toBe(403);
    expect(read.count).toBe(1);
  });
});

describe('GraphQL takes no form or multipart data', () => {
  it('with a valid key, a form (the review\'s 1 MiB one, or one that nests variables deeper than the JSON bound) is 415 naming the content type, before any of it arrives', async () => {
    const { key } = await svc.newKey();
    const deepVariables = `query=${encodeURIComponent('{ health { status } }')}&variables=${encodeURIComponent(`{"v":${'['.repeat(150_000)}${']'.repeat(150_000)}}`)}`;
    for (const [body, type] of [[MANY_FIELDS, form['content-type']], [deepVariables, form['content-type']], [deepVariables, 'multipart/form-data; boundary=x']]) {
      const answer = await answerUnread('/graphql', { authorization: `Bearer ${key}`, 'content-type': type, 'content-length': String(Buffer.byteLength(body)) });
      expect(answer.status).toBe(415);
      expect(JSON.parse(answer.body).errors[0].extensions).toMatchObject({ code: 'unsupported_media_type', details: { field: 'content-type' } });
    }
  });

  it('a small form is refused as well, with or without a key, and charges nothing', async () => {
    const { key } = await svc.newKey();
    for (const withKey of [undefined, key]) {
      const res = await svc.request('POST', '/graphql', { key: withKey, rawBody: `query=${encodeURIComponent('{ health { status } }')}`, headers: form });
      expect(res.status).toBe(415);
      expect(res.body.errors[0].message).toContain('form and multipart data are not taken');
      expect(res.headers.get('x-credits-charged')).toBe('0');
    }
  });
});
