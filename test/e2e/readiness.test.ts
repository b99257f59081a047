import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READINESS_ANSWER_MS } from '../../adapters/db/orm.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Readiness against a database that dies while the service runs: the service reaches PostgreSQL through a TCP
 * proxy this test owns, then the proxy is shut and every connection through it cut.
 * Needs a PostgreSQL server (TEST_DATABASE_URL); the embedded PGlite runs in-process and cannot become unreachable.
 */
const serverUrl = process.env.TEST_DATABASE_URL;

describe.runIf(serverUrl)('GET /ready with an unreachable database', () => {
  let svc: TestService;
  let proxy: Server;
  const sockets = new Set<Socket>();
  let now = new Date();

  beforeAll(async () => {
    const target = new URL(serverUrl!);
    proxy = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const port = (proxy.address() as { port: number }).port;
    svc = await startTestService({ now: () => now, databaseUrlThrough: (url) => { const proxied = new URL(url); proxied.host = `127.0.0.1:${port}`; return proxied.toString(); } });
  });

  afterAll(async () => {
    await svc?.close().catch(() => undefined);
    proxy?.close();
  });

  it('is 200 ok while the database answers, then 503 degraded in the same body shape once it is gone', async () => {
    const healthy = await svc.request('GET', '/ready');
    expect(healthy.status).toBe(200);
    expect(healthy.body.status).toBe('ok');

    proxy.close();
    for (const socket of sockets) socket.destroy();
    // A readiness answer is given again for a second without a round trip.
    expect((await svc.request('GET', '/ready')).status).toBe(200);
    now = new Date(now.getTime() + READINESS_ANSWER_MS);

    const degraded = await svc.request('GET', '/ready');
    expect(degraded.status).toBe(503);
    expect(degraded.body).toEqual({ status: 'degraded', service: 'conversation-data-service', version: expect.any(String), timestamp: expect.any(String) });
    const health = await svc.request('GET', '/health');
    expect(health.status).toBe(200);
  });
});
