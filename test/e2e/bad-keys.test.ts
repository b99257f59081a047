import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeySecret } from '../../adapters/identity/key-material.ts';
import { KEY_FAILURES } from '../../adapters/identity/key-failures.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Keys that are not valid, counted per client address (security review h, F3: 1,000 random keys from one address
 * were 1,000 database lookups, at ~170 a second, never refused).
 */
let svc: TestService;
let now = new Date('2026-11-25T12:00:00Z');
beforeAll(async () => {
  svc = await startTestService({ now: () => now, jobs: { autostart: false } });
});
afterAll(async () => {
  await svc?.close();
});

/** GET /v1/whoami with `key`, from a loopback address of its own. */
function whoami(key: string, localAddress = '127.0.0.1'): Promise<{ status: number; retryAfter: string | undefined; body: any }> {
  return call('GET', '/v1/whoami', key, localAddress);
}

function call(method: string, path: string, key: string, localAddress: string, body?: string): Promise<{ status: number; retryAfter: string | undefined; body: any }> {
  const url = new URL(path, svc.url);
  const headers = { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }) };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: url.port, method, path: url.pathname, localAddress, headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'], body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('keys that are not valid', () => {
  it(`are refused from an address past ${KEY_FAILURES.perAddress} lookups a minute, but for keys the instance read live lately`, async () => {
    const { key: working } = await svc.newKey();
    const { key: fresh } = await svc.newKey();
    // In use on this instance half a minute before the guessing starts (from another address of the client's).
    expect((await whoami(working, '127.0.0.4')).status).toBe(200);
    now = new Date(now.getTime() + KEY_FAILURES.windowMs / 2);
    for (let i = 0; i < KEY_FAILURES.perAddress; i++) expect((await whoami(generateKeySecret('live').secret)).status).toBe(401);
    // Before: 401 again, and a lookup each time.
    const refused = await whoami(generateKeySecret('live').secret);
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe(String(KEY_FAILURES.windowMs / 1000));
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', details: { reason: 'invalid_keys', limit: KEY_FAILURES.perAddress } });
    // A key this instance read live goes on working from that address, once its cache entry has ended too (late
    // review h: it was refused with the guessers); one it has not seen waits: nothing tells it apart before the lookup.
    expect((await whoami(working)).status).toBe(200);
    now = new Date(now.getTime() + KEY_FAILURES.windowMs / 2 + 1_000);
    expect((await whoami(working)).status).toBe(200);
    expect((await whoami(fresh)).status).toBe(429);
    expect((await whoami(fresh, '127.0.0.2')).status).toBe(200);
    expect((await whoami(generateKeySecret('live').secret, '127.0.0.2')).status).toBe(401);
    // Malformed keys are refused before any lookup and never counted.
    for (let i = 0; i < 3; i++) expect((await whoami('svc_live_short', '127.0.0.3')).status).toBe(401);
    now = new Date(now.getTime() + KEY_FAILURES.windowMs / 2);
    expect((await whoami(generateKeySecret('live').secret)).status).toBe(401);
  });

  it('counts MCP access tokens that are not valid the same way, per address', async () => {
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const token = () => `not-a-token-${crypto.randomUUID()}`;
    for (let i = 0; i < KEY_FAILURES.perAddress; i++) expect((await call('POST', '/mcp', token(), '127.0.0.6', ping)).status).toBe(401);
    const refused = await call('POST', '/mcp', token(), '127.0.0.6', ping);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', details: { reason: 'invalid_keys' } });
    expect((await call('POST', '/mcp', token(), '127.0.0.7', ping)).status).toBe(401);
  });
});
