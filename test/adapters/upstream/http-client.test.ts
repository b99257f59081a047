import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeQuery, UpstreamHttpClient } from '../../../adapters/upstream/http-client.ts';
import { UpstreamError } from '../../../adapters/upstream/upstream-error.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, hit: number) => void;

let server: Server | undefined;
let client: UpstreamHttpClient | undefined;

async function serve(handler: Handler): Promise<string> {
  let hits = 0;
  server = createServer((req, res) => handler(req, res, ++hits));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function makeClient(baseUrl: string, extra: Partial<ConstructorParameters<typeof UpstreamHttpClient>[0]> = {}): UpstreamHttpClient {
  client = new UpstreamHttpClient({ baseUrl, platform: 'forum', timeoutMs: 300, maxRetries: 2, retryBaseMs: 5, retryCapMs: 20, ...extra });
  return client;
}

async function expectUnavailable(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  expect((error as UpstreamError).kind).toBe('unavailable');
  return error as UpstreamError;
}

afterEach(async () => {
  await client?.close();
  client = undefined;
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

describe('UpstreamHttpClient', () => {
  it('returns status, headers and parsed body, sends the query and configured headers', async () => {
    let seen: { url?: string; ua?: string } = {};
    const url = await serve((req, res) => {
      seen = { url: req.url, ua: req.headers['user-agent'] };
      json(res, 200, { ok: 1 }, { 'x-thing': 'y' });
    });
    const c = makeClient(url, { headers: { 'user-agent': 'svc-test' } });
    const out = await c.getJson('/api/info', { id: 't3_a,t3_b', raw_json: 1, skip: undefined });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ ok: 1 });
    expect(out.headers['x-thing']).toBe('y');
    expect(seen.url).toBe('/api/info?id=t3_a%2Ct3_b&raw_json=1');
    expect(seen.ua).toBe('svc-test');
    expect(c.stats.requests).toBe(1);
  });

  it('keeps the base URL path prefix', async () => {
    let path = '';
    const url = await serve((req, res) => {
      path = req.url ?? '';
      json(res, 200, {});
    });
    await makeClient(`${url}/i/api/`).getJson('/graphql/x/Op');
    expect(path).toBe('/i/api/graphql/x/Op');
  });

  it('returns 4xx other than 429 to the caller without retrying', async () => {
    const url = await serve((_req, res) => json(res, 403, { reason: 'quarantined', error: 403 }));
    const c = makeClient(url);
    const out = await c.getJson('/r/x/about');
    expect(out).toMatchObject({ status: 403, body: { reason: 'quarantined' } });
    expect(c.stats.requests).toBe(1);
  });

  it('retries 503 and succeeds when the upstream recovers', async () => {
    const url = await serve((_req, res, hit) => (hit < 3 ? json(res, 503, {}) : json(res, 200, { hit })));
    const c = makeClient(url);
    expect((await c.getJson('/x')).body).toEqual({ hit: 3 });
    expect(c.stats.requests).toBe(3);
    expect(c.stats.retries).toBe(2);
  });

  it('gives up with unavailable after bounded retries of 502', async () => {
    const url = await serve((_req, res) => json(res, 502, {}));
    const c = makeClient(url);
    const error = await expectUnavailable(c.getJson('/x'));
    expect(error.status).toBe(502);
    expect(c.stats.requests).toBe(3);
  });

  it('does not retry a plain 500', async () => {
    const url = await serve((_req, res) => json(res, 500, {}));
    const c = makeClient(url);
    expect((await expectUnavailable(c.getJson('/x'))).status).toBe(500);
    expect(c.stats.requests).toBe(1);
  });

  it('does not retry a request the client itself refuses, nor one on a closed client', async () => {
    const url = await serve((_req, res) => json(res, 200, {}));
    const c = makeClient(url);
    await expectUnavailable(c.getJson('/x y\r\n'));
    expect(c.stats.requests).toBe(1);
    const closed = new UpstreamHttpClient({ baseUrl: url, platform: 'forum', retryBaseMs: 1 });
    await closed.close();
    await expectUnavailable(closed.getJson('/x'));
    expect(closed.stats.requests).toBe(1);
  });

  it('times out a silent upstream and retries, then reports unavailable', async () => {
    const url = await serve(() => undefined);
    const c = makeClient(url, { timeoutMs: 100, maxRetries: 1 });
    const started = Date.now();
    await expectUnavailable(c.getJson('/slow'));
    expect(c.stats.requests).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('times out a request still queued for a connection, which is then never sent', async () => {
    const paths: string[] = [];
    let held: ServerResponse | undefined;
    let holding!: () => void;
    const holdSeen = new Promise<void>((resolve) => (holding = resolve));
    const url = await serve((req, res) => {
      paths.push(req.url ?? '');
      if (req.url === '/hold') {
        held = res;
        holding();
      } else json(res, 200, {});
    });
    const c = makeClient(url, { connections: 1, timeoutMs: 150, maxRetries: 0 });
    // The only connection is taken by a request outside the client's timer, answered only after the assertions.
    const holder = (Reflect.get(c, 'pool') as Pool).request({ method: 'GET', path: '/hold' });
    await holdSeen;
    const stillPending = new Promise<string>((resolve) => setTimeout(() => resolve('still pending'), 2_000));
    const outcome = await Promise.race([c.getJson('/queued').then(() => 'resolved', (e: unknown) => e), stillPending]);
    json(held!, 200, {});
    await (await holder).body.text();
    expect(outcome).toBeInstanceOf(UpstreamError);
    expect((outcome as UpstreamError).kind).toBe('unavailable');
    expect((outcome as UpstreamError).message).toContain('timed out after 150 ms');
    // Requests leave the queue in order: once this one is answered, the timed-out one has reached the connection.
    expect((await c.getJson('/after')).status).toBe(200);
    expect(paths).toEqual(['/hold', '/after']);
  });

  it('retries a connection reset', async () => {
    const url = await serve((req, res, hit) => (hit === 1 ? req.socket.destroy() : json(res, 200, { hit })));
    const c = makeClient(url);
    expect((await c.getJson('/x')).body).toEqual({ hit: 2 });
    expect(c.stats.requests).toBe(2);
  });

  it('reports unavailable when every attempt is reset', async () => {
    const url = await serve((req) => req.socket.destroy());
    const c = makeClient(url);
    const error = await expectUnavailable(c.getJson('/x'));
    expect(error.status).toBeUndefined();
    expect(c.stats.requests).toBe(3);
  });

  it('honours Retry-After on 429 before retrying', async () => {
    const times: number[] = [];
    const url = await serve((_req, res, hit) => {
      times.push(Date.now());
      if (hit === 1) json(res, 429, {}, { 'retry-after': '1' });
      else json(res, 200, { ok: true });
    });
    const c = makeClient(url);
    expect((await c.getJson('/x')).body).toEqual({ ok: true });
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(950);
  });

  it('gives up at once when Retry-After exceeds the cap', async () => {
    const url = await serve((_req, res) => json(res, 429, {}, { 'retry-after': '120' }));
    const c = makeClient(url, { retryAfterCapMs: 1000 });
    expect((await expectUnavailable(c.getJson('/x'))).status).toBe(429);
    expect(c.stats.requests).toBe(1);
  });

  it('waits for the rate-limit window when remaining reaches 0', async () => {
    const times: number[] = [];
    const url = await serve((_req, res) => {
      times.push(Date.now());
      json(res, 200, {}, { 'x-ratelimit-remaining': '0.0', 'x-ratelimit-reset': '1' });
    });
    const c = makeClient(url);
    await c.getJson('/a');
    await c.getJson('/b');
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(900);
  });

  it('treats a non-JSON 200 body as invalid, apart from an unreachable upstream', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>');
    });
    await expect(makeClient(url).getJson('/x')).rejects.toMatchObject({ name: 'UpstreamError', kind: 'invalid' });
  });

  it('reuses keep-alive connections', async () => {
    const sockets = new Set<unknown>();
    const url = await serve((req, res) => {
      sockets.add(req.socket);
      json(res, 200, {});
    });
    const c = makeClient(url);
    for (let i = 0; i < 20; i++) await c.getJson('/x');
    // undici may open a second connection while the first is being released; 20 calls must not mean 20 sockets.
    expect(sockets.size).toBeLessThanOrEqual(2);
  });

  it('writes a query string exactly as URLSearchParams does', () => {
    // Every character up to U+3000 and beyond the BMP, lone surrogates, the characters the two encodings treat apart.
    const texts = [...Array.from({ length: 0x3000 }, (_, code) => `${String.fromCharCode(code)}a b`), "😀 ~!*'()-._", '\uD800x', 'a\uDC00', ''];
    for (const text of texts) {
      const query = { [text]: text, n: 3, yes: true, skip: undefined };
      expect(encodeQuery(query)).toBe(`?${new URLSearchParams({ [text]: text, n: '3', yes: 'true' })}`);
    }
    expect(encodeQuery({})).toBe('');
    expect(encodeQuery({ skip: undefined })).toBe('');
    expect(encodeQuery(undefined)).toBe('');
  });
});
