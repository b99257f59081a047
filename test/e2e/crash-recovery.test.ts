import { afterAll, describe, expect, it } from 'vitest';
import { JOB } from '../../jobs/jobs.ts';
import { killServiceProcesses, startServiceProcess } from '../support/service-process.ts';
import { startTestService } from '../support/service.ts';
import { startReceiver } from '../support/webhook-receiver.ts';
import { finishedRuns, until } from './monitor-support.ts';

/**
 * A worker killed with SIGKILL in the middle of its work loses nothing: a second service process on the same
 * PostgreSQL takes the run (or the delivery) over once its lease runs out, and nothing is billed twice.
 */
afterAll(killServiceProcesses);

/** Each test starts service processes of its own; on a loaded 2-core machine that alone passed 30 s. */
const CHILD_PROCESS_MS = 90_000;

describe.runIf(process.env.TEST_DATABASE_URL)('a worker killed mid-work (needs a PostgreSQL server; skipped on PGlite)', () => {
  it('loses no monitor run and bills it once', async () => {
    // This instance does not work on jobs until the other process has died; then it takes over after 1 s.
    const svc = await startTestService({ tiers: { free: { rateLimitPerMinute: 100_000 } }, jobs: { processEvery: 100, lockLifetimeMs: 1_000, autostart: false } });
    try {
      const { key } = await svc.newKey({ scopes: ['monitors:write', 'usage:read', 'read:forum'] });
      const sim = svc.service.platforms.sims.forum!;
      // The other process's forum search hangs long enough to be killed in the middle of it.
      sim.faults.add({ route: '/search', kind: 'latency', latencyMs: 20_000 });
      const monitor = (await svc.request('POST', '/v1/monitors', { key, body: { name: 'crash', target: { kind: 'search', keywords: 'rust' }, sources: ['forum'], schedule: 'manual' } })).body.data;
      const before = (await svc.request('GET', '/v1/usage', { key })).body.data.balance;
      const child = await startServiceProcess(svc);
      await until(() => svc.request('GET', `/v1/monitors/${monitor.id}/runs`, { key }), (body) => body.data[0]?.status === 'running');
      await child.kill();
      sim.faults.clear();
      await svc.service.jobs.start();
      const [run] = await finishedRuns(svc, key, monitor.id, 1, 800);
      expect(run.status).toBe('succeeded');
      const [{ attempts }] = await svc.service.orm.em.getConnection().execute<{ attempts: number }[]>(`select "attempts" from "monitor_run" where "id" = ?`, [run.id], 'all');
      expect(attempts).toBe(2);
      const usage = (await svc.request('GET', '/v1/usage', { key })).body.data;
      expect(before - usage.balance).toBe(run.creditsUsed);
      // The killed process's hold is not charged; it stops counting once it expires.
      expect(run.creditsUsed).toBeGreaterThan(0);
    } finally {
      await svc.close();
    }
  }, CHILD_PROCESS_MS);

  it('loses no webhook delivery: it is attempted again with the same webhook-id', async () => {
    let offsetMs = 0;
    const receiver = await startReceiver();
    const svc = await startTestService({ now: () => new Date(Date.now() + offsetMs), tiers: { free: { rateLimitPerMinute: 100_000 } }, jobs: { processEvery: 100, deliverySweepMs: 50, autostart: false } });
    try {
      const { key } = await svc.newKey({ scopes: ['webhooks:write'] });
      receiver.answer('/slow', 'hang');
      const hook = (await svc.request('POST', '/v1/webhooks', { key, body: { name: 'slow', url: receiver.url('/slow') } })).body.data;
      const child = await startServiceProcess(svc);
      // The other process makes the test delivery's first attempt and dies while the receiver holds it.
      void fetch(`${child.url}/v1/webhooks/${hook.id}/test`, { method: 'POST', headers: { authorization: `Bearer ${key}` } }).catch(() => undefined);
      for (let i = 0; i < 200 && receiver.at('/slow').length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(receiver.at('/slow')).toHaveLength(1);
      await child.kill();
      receiver.answer('/slow', { status: 200 });
      // Past the dead attempt's lease, the delivery is due again.
      offsetMs = 61_000;
      // The sweep's one schedule row still carries the dead process's next sweep (its default 5 s away, which this
      // instance's start keeps): as if that had passed too, it is due now.
      await svc.service.orm.em.getConnection().execute(`update "agenda_jobs" set "next_run_at" = now() where "name" = ?`, [JOB.deliveries]);
      await svc.service.jobs.start();
      const [delivered] = (await until(() => svc.request('GET', `/v1/webhook-deliveries?webhookId=${hook.id}`, { key }), (body) => body.data[0]?.status === 'succeeded')).data;
      expect(delivered).toMatchObject({ eventType: 'webhook.test', status: 'succeeded', attempts: 1 });
      const ids = receiver.at('/slow').map((request) => request.headers['webhook-id']);
      expect(ids).toHaveLength(2);
      expect(ids[1]).toBe(ids[0]);
      expect(ids[0]).toBe(delivered.eventId);
    } finally {
      await svc.close();
      await receiver.close();
    }
  }, CHILD_PROCESS_MS);
});

describe.runIf(process.env.TEST_DATABASE_URL)('two instances (need a PostgreSQL server; skipped on PGlite)', () => {
  it('run a due scheduled run once when they are two processes', async () => {
    const svc = await startTestService({ tiers: { free: { rateLimitPerMinute: 100_000 } }, jobs: { processEvery: 100 } });
    const child = await startServiceProcess(svc);
    try {
      const { key } = await svc.newKey({ scopes: ['monitors:write', 'read:social'] });
      const monitor = (await svc.request('POST', '/v1/monitors', { key, body: { name: 'twice?', target: { kind: 'search', keywords: 'rust' }, sources: ['forum'], schedule: 'weekly' } })).body.data;
      await finishedRuns(svc, key, monitor.id, 1);
      const db = svc.service.orm.em.getConnection();
      // As if a week had passed: both processes' workers see the schedule due.
      await db.execute(`update "agenda_jobs" set "next_run_at" = now() where "name" = 'monitor.schedule' and "data"->>'monitorId' = ?`, [monitor.id]);
      await finishedRuns(svc, key, monitor.id, 2, 800);
      const [{ next }] = await db.execute<{ next: Date }[]>(`select "next_run_at" as "next" from "agenda_jobs" where "name" = 'monitor.schedule' and "data"->>'monitorId' = ?`, [monitor.id], 'all');
      expect(new Date(next).getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);
      const runs = (await svc.request('GET', `/v1/monitors/${monitor.id}/runs`, { key })).body.data;
      expect(runs.map((run: { status: string }) => run.status)).toEqual(['succeeded', 'succeeded']);
    } finally {
      await child.kill();
      await svc.close();
    }
  }, CHILD_PROCESS_MS);

  it('deliver each event once', async () => {
    const receiver = await startReceiver();
    const tiers = { free: { rateLimitPerMinute: 100_000 } };
    const first = await startTestService({ tiers, jobs: { processEvery: 100, deliverySweepMs: 20 } });
    // The second instance reads the first one's simulated platforms, as two instances read the same real ones.
    const upstreams = { FORUM_UPSTREAM_URL: first.service.platforms.simulated.forum, MICROBLOG_UPSTREAM_URL: first.service.platforms.simulated.microblog };
    const second = await startTestService({ tiers, env: upstreams, shareDatabaseWith: first, jobs: { processEvery: 100, deliverySweepMs: 20 } });
    try {
      const { key } = await first.newKey({ scopes: ['monitors:write', 'webhooks:write', 'read:social'] });
      const hook = (await first.request('POST', '/v1/webhooks', { key, body: { name: 'both', url: receiver.url('/both') } })).body.data;
      const monitor = (await first.request('POST', '/v1/monitors', { key, body: { name: 'both', target: { kind: 'subforum', subforum: 'programming', keywords: 'hedgehogfest' }, webhookId: hook.id, schedule: 'manual' } })).body.data;
      await finishedRuns(first, key, monitor.id, 1);
      for (let i = 0; i < 12; i++) first.service.platforms.sims.forum!.world.addPost({ subforum: 'programming', title: `hedgehogfest day ${i}`, selftext: `Programme for day ${i} of the festival, with talks and walks.` });
      await first.request('POST', `/v1/monitors/${monitor.id}/run`, { key });
      await finishedRuns(first, key, monitor.id, 2);
      await until(() => first.request('GET', `/v1/webhook-deliveries?webhookId=${hook.id}&limit=100`, { key }), (body) => body.data.length === 12 && body.data.every((d: { status: string }) => d.status === 'succeeded'));
      const ids = receiver.at('/both').map((request) => request.headers['webhook-id']);
      expect(ids).toHaveLength(12);
      expect(new Set(ids).size).toBe(12);
    } finally {
      await second.close();
      await first.close();
      await receiver.close();
    }
  }, CHILD_PROCESS_MS);
});
