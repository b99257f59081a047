import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { startProxy } from '../support/tcp-proxy.ts';

/**
 * PostgreSQL going away while the service runs, and coming back: the service reaches it through a TCP proxy this test
 * cuts and restores. Needs a PostgreSQL server (TEST_DATABASE_URL).
 */
const serverUrl = process.env.TEST_DATABASE_URL;

describe.runIf(serverUrl)('a database that goes away and comes back (needs a PostgreSQL server; skipped on PGlite)', () => {
  let svc: TestService;
  let proxy: ReturnType<typeof startProxy>;

  beforeAll(async () => {
    proxy = startProxy(new URL(serverUrl!));
    await proxy.listen();
    svc = await startTestService({
      tiers: { free: { rateLimitPerMinute: 100_000 } },
      databaseUrlThrough: (url) => proxy.through(url),
    });
  });
  afterAll(async () => {
    await proxy?.listen().catch(() => undefined);
    await svc?.close().catch(() => undefined);
    await proxy?.down();
  });

  it('answers 503 retryable and charges nothing while it is away, then recovers without a restart', async () => {
    const { key } = await svc.newKey({ scopes: ['read:social', 'usage:read'] });
    const read = () => svc.request('GET', '/v1/forum/posts/1a00005', { key });
    const before = (await svc.request('GET', '/v1/usage', { key })).body.data.balance;
    let charged = 0;
    const served = await read();
    expect(served.status).toBe(200);
    charged += Number(served.headers.get('x-credits-charged'));

    await proxy.down();
    // Calls on a credit lease need no database: the outage shows once the service has seen its connections drop.
    expect((await svc.request('GET', '/ready')).status).toBe(503);
    const mcpWhoami = () =>
      svc.request('POST', '/mcp', { key, body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, headers: { accept: 'application/json, text/event-stream' } });
    for (const attempt of [read, () => svc.request('GET', '/v1/whoami', { key }), mcpWhoami]) {
      const res = await attempt();
      expect(res.status, JSON.stringify(res.body)).toBe(503);
      expect(res.body.error).toMatchObject({ code: 'not_ready', retryable: true });
      expect(res.headers.get('x-credits-charged')).toBe('0');
    }

    await proxy.listen();
    let back = await read();
    for (let i = 0; i < 100 && back.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      back = await read();
    }
    expect(back.status).toBe(200);
    charged += Number(back.headers.get('x-credits-charged'));
    const usage = (await svc.request('GET', '/v1/usage', { key })).body.data;
    expect(before - usage.balance).toBe(charged);
    expect(usage.reserved).toBe(0);
  });
});
