import { afterEach, describe, expect, it } from 'vitest';
import { startSimServer, sendJson, type SimServer } from '../../../adapters/sim/sim-server.ts';
import { FaultInjector } from '../../../adapters/sim/faults.ts';

let server: SimServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('sim server', () => {
  it('answers 500 when the platform handler throws, and keeps serving', async () => {
    server = await startSimServer(
      'test',
      async (_req, res, url) => {
        if (url.pathname === '/boom') throw new Error('kaput');
        sendJson(res, 200, { ok: true });
      },
      { faults: new FaultInjector() },
    );
    const boom = await fetch(`${server.url}/boom`);
    expect(boom.status).toBe(500);
    expect(((await boom.json()) as { message: string }).message).toContain('kaput');
    expect((await fetch(`${server.url}/fine`)).status).toBe(200);
  });

  it('validates fault rules sent over HTTP and applies count-limited rules', async () => {
    const faults = new FaultInjector();
    server = await startSimServer('test', async (_req, res) => sendJson(res, 200, {}), { faults });
    const bad = await fetch(`${server.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ rule: { kind: 'status' } }) });
    expect(bad.status).toBe(400);
    await fetch(`${server.url}/__sim/faults`, { method: 'POST', body: JSON.stringify({ rule: { route: '/x', kind: 'status', status: 504, count: 2 } }) });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${server.url}/x/y`)).status);
    expect(statuses).toEqual([504, 504, 200]);
    // Control routes are never subject to faults.
    faults.add({ route: '/', kind: 'status', status: 500 });
    expect((await fetch(`${server.url}/__sim/faults`, { method: 'DELETE' })).status).toBe(200);
    expect((await fetch(`${server.url}/anything`)).status).toBe(200);
  });
});
