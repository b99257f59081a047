import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../../adapters/db/connection-error.ts';
import { sqlDbFromOrm } from '../../../adapters/db/sql.ts';
import { createMonitorService, type MonitorScheduler, type MonitorService } from '../../../adapters/monitors/monitor-service.ts';
import { createScheduleTurns, SCHEDULE_TURN_RULES } from '../../../adapters/monitors/schedule-turns.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Shared schedule turns hold a connection of the main pool while they wait on the job store: a slow job store must
 * not starve the requests that need the database, and a turn that waits too long for another fails cleanly.
 */
describe.runIf(process.env.TEST_DATABASE_URL)('shared schedule turns against a slow job store', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ jobs: { autostart: false }, tiers: { free: { maxMonitors: 20 } } });
  }, 120_000);
  afterAll(async () => {
    await svc?.close();
  });

  /**
   * Monitors whose job store stops every schedule change, once `slow()` is called, until `release()`. The store is
   * outside the database (as MongoDB is), so a change awaits it in its turn: where it is the database, a PATCH
   * changes the schedule by a statement of its own transaction and awaits no job store.
   */
  function slowStoreMonitors(rules = SCHEDULE_TURN_RULES) {
    const jobs = svc.service.jobs;
    let slow = false;
    let inStore = 0;
    let peak = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const arrivals: Array<{ count: number; reached: () => void }> = [];
    const scheduler: MonitorScheduler = {
      ...jobs,
      scheduleWithin: async () => false,
      unscheduleWithin: async () => false,
      async reschedule(monitorId, row) {
        if (slow) {
          peak = Math.max(peak, ++inStore);
          for (const arrival of arrivals) if (inStore >= arrival.count) arrival.reached();
          await released;
          inStore--;
        }
        return jobs.reschedule(monitorId, row);
      },
    };
    const db = sqlDbFromOrm(svc.service.orm);
    const monitors: MonitorService = createMonitorService({ db, scheduler, turns: createScheduleTurns(db, { shared: true, rules }), limits: (id) => svc.service.credits.limits(id), clock: () => new Date() });
    return {
      monitors,
      slow: () => void (slow = true),
      release,
      peak: () => peak,
      /** Resolves once `count` changes are waiting on the job store at once. */
      waiting: (count: number) => new Promise<void>((reached) => arrivals.push({ count, reached })),
    };
  }

  const sql = <T extends object>(statement: string, params: unknown[] = []) => svc.service.orm.em.getConnection().execute<T[]>(statement, params, 'all');

  const daily = { name: 'm', target: { kind: 'search' as const, keywords: 'rust' }, schedule: 'daily' as const, webhookId: null, backfill: 0 };

  /** Sessions in a turn: each holds its monitor's advisory lock (the only advisory locks taken here). */
  async function sessionsInTurns(): Promise<number> {
    const [row] = await svc.service.orm.em
      .getConnection()
      .execute<{ n: string }[]>(`select count(*) as "n" from pg_locks where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())`, [], 'all');
    return Number(row.n);
  }

  it('hold at most two connections however many monitors change at once, and the pool still answers', async () => {
    const { workspaceId } = await svc.newKey({ scopes: ['monitors:write'] });
    const store = slowStoreMonitors();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await store.monitors.create(workspaceId, daily)).id);

    store.slow();
    const changes = ids.map((id) => store.monitors.update(workspaceId, id, { schedule: 'weekly' }));
    await store.waiting(SCHEDULE_TURN_RULES.concurrent);
    // A third turn reaching the job store means turns are not capped (and, uncapped, ten fill the pool).
    const seen = await Promise.race([sessionsInTurns(), store.waiting(SCHEDULE_TURN_RULES.concurrent + 1).then(() => 'a third turn')]);
    store.release();
    const answered = await Promise.all(changes);

    expect(seen).toBe(SCHEDULE_TURN_RULES.concurrent);
    expect(store.peak()).toBe(SCHEDULE_TURN_RULES.concurrent);
    expect(answered.map((monitor) => monitor.schedule)).toEqual(ids.map(() => 'weekly'));
  });

  it('a turn that waits past its bound for another turn on the same monitor fails with a clear error', async () => {
    const { workspaceId } = await svc.newKey({ scopes: ['monitors:write'] });
    const holder = slowStoreMonitors();
    const waiter = slowStoreMonitors({ ...SCHEDULE_TURN_RULES, lockTimeoutMs: 100 });
    const { id } = await holder.monitors.create(workspaceId, daily);

    holder.slow();
    const held = holder.monitors.update(workspaceId, id, { schedule: 'weekly' });
    await holder.waiting(1);
    await expect(waiter.monitors.update(workspaceId, id, { schedule: 'daily' })).rejects.toMatchObject({ kind: 'state', details: { reason: 'schedule_busy' }, retryAfterSeconds: 1 });
    holder.release();
    // The refused change wrote its row in its turn, so nothing of it was saved: the held change's row stands.
    expect(await held).toMatchObject({ schedule: 'weekly', nextRunAt: expect.any(String) });
    expect(await holder.monitors.get(workspaceId, id)).toMatchObject({ schedule: 'weekly' });
  });

  /** The session in a turn: the one holding an advisory lock (the only advisory locks taken here). */
  async function turnSession(): Promise<number> {
    const [row] = await sql<{ pid: number }>(`select pid from pg_locks where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())`);
    return row.pid;
  }

  it('a turn whose session the server ends gives its pool connection back: more turns killed than the pool has connections, and it still answers', async () => {
    const { workspaceId } = await svc.newKey({ scopes: ['monitors:write'] });
    const { id } = await slowStoreMonitors().monitors.create(workspaceId, daily);
    // One more than the pool's 10 connections: a turn's connection lost for good each time would leave none.
    for (let i = 0; i < 11; i++) {
      expect(await sql(`select 1 as "one"`)).toEqual([{ one: 1 }]);
      const store = slowStoreMonitors();
      store.slow();
      const change = store.monitors.update(workspaceId, id, { schedule: i % 2 ? 'daily' : 'weekly' });
      await store.waiting(1);
      // The turn sits idle in its transaction, awaiting the job store, when its session is ended.
      await sql(`select pg_terminate_backend(?)`, [await turnSession()]);
      store.release();
      const error = await change.then(() => undefined, (failure: unknown) => failure);
      expect(isDatabaseUnavailable(error)).toBe(true);
    }
    expect(await sql(`select 1 as "one"`)).toEqual([{ one: 1 }]);
  });

  it('a turn idle past its bound, its job store not answering, loses its session and lock; once the store answers it fails and the pool still answers', async () => {
    const { workspaceId } = await svc.newKey({ scopes: ['monitors:write'] });
    const store = slowStoreMonitors({ ...SCHEDULE_TURN_RULES, idleMs: 200 });
    const { id } = await store.monitors.create(workspaceId, daily);

    store.slow();
    const change = store.monitors.update(workspaceId, id, { schedule: 'weekly' });
    const failed = change.then(() => undefined, (failure: unknown) => failure);
    await store.waiting(1);
    const pid = await turnSession();
    // The job store still holds the change: only the server's bound can end the session (polled for up to 5 s).
    let ended = false;
    for (let i = 0; i < 100 && !ended; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      ended = (await sql(`select 1 from pg_stat_activity where pid = ?`, [pid])).length === 0;
    }
    const [{ free }] = await sql<{ free: boolean }>(`select pg_try_advisory_xact_lock(hashtext('monitor-schedule:' || ?)) as "free"`, [id]);
    store.release();

    expect(ended).toBe(true);
    expect(free).toBe(true);
    expect(isDatabaseUnavailable(await failed)).toBe(true);
    expect(await sql(`select 1 as "one"`)).toEqual([{ one: 1 }]);
  });
});
