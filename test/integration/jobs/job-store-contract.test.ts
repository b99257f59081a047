import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from 'agenda';
import { embeddedDatabase, initOrm, type Orm } from '../../../adapters/db/orm.ts';
import { sqlDbFromOrm, type SqlDb } from '../../../adapters/db/sql.ts';
import type { MonitorService } from '../../../adapters/monitors/monitor-service.ts';
import type { MonitorSchedule } from '../../../adapters/shapes/monitor-shapes.ts';
import { createJobs, JOB } from '../../../jobs/jobs.ts';
import { openJobStore, type JobStore, type JobStoreOptions } from '../../../jobs/job-store.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';

/** Waits for a condition on real workers, bounded. */
async function until(check: () => boolean | Promise<boolean>, tries = 200): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('condition not reached');
}

interface Backend {
  name: string;
  /** Several service instances can share this store (not PGlite, which has one owner process). */
  sharedByInstances: boolean;
  /** Options for one more worker on the same store. */
  open(): Promise<JobStoreOptions>;
  /** The service's own database, where it holds the jobs too (not MongoDB); once opened. */
  database?(): SqlDb;
  close(): Promise<void>;
}

function sqlBackend(): Backend {
  let db: TestDatabase;
  let orm: Orm;
  return {
    name: process.env.TEST_DATABASE_URL ? 'postgresql' : 'pglite (through its socket)',
    sharedByInstances: Boolean(process.env.TEST_DATABASE_URL),
    async open() {
      if (!orm) {
        db = await createTestDatabase();
        orm = await initOrm({ databaseUrl: db.databaseUrl, dataDir: db.dataDir });
      }
      return db.databaseUrl ? { databaseUrl: db.databaseUrl } : { pglite: embeddedDatabase(orm) };
    },
    database: () => sqlDbFromOrm(orm),
    async close() {
      await orm?.close(true);
      await db?.drop();
    },
  };
}

function mongoBackend(url: string): Backend {
  const database = `jobs_contract_${Date.now().toString(36)}`;
  return { name: 'mongodb', sharedByInstances: true, open: async () => ({ mongodbUrl: `${url.replace(/\/$/, '')}/${database}` }), close: async () => {} };
}

/** An active monitor's row with this schedule, changed at `from`. */
const active = (schedule: MonitorSchedule, from: Date) => ({ current: async () => ({ schedule, status: 'active' as const, changedAt: from }), record: async () => {} });

const noMonitors = () => {
  throw new Error('not used');
};

/** The service's jobs on a store, with nothing behind them (or only the monitors given): their schedules are under test. */
const jobsOn = (store: JobStore, options: { monitors?: () => MonitorService; clock?: () => Date } = {}) =>
  createJobs({
    agenda: store.agenda,
    runner: { execute: async () => ({ status: 'finished', events: 0 }), stranded: async () => [] },
    deliveries: { sweep: async () => 0, idle: async () => {}, attemptNow: async () => {}, close: async () => {} },
    monitors: options.monitors ?? noMonitors,
    housekeeping: async () => {},
    onError: () => {},
    jobsInDatabase: store.backend !== 'mongodb',
    clock: options.clock ?? (() => new Date()),
  });

/** One contract, run against every job-store backend available here. */
function contract(backend: Backend) {
  describe(`job store contract: ${backend.name}`, () => {
    const stores: JobStore[] = [];
    const worker = async (lockLifetimeMs = 60_000) => {
      const store = await openJobStore({ ...(await backend.open()), processEvery: 50, lockLifetimeMs });
      stores.push(store);
      return store;
    };
    afterAll(async () => {
      for (const store of stores) await store.close(1_000).catch(() => undefined);
      await backend.close();
    });

    it('runs a job once with two workers on one store', async () => {
      const runs: string[] = [];
      const [a, b] = [await worker(), await worker()];
      for (const [name, store] of [['a', a], ['b', b]] as const) store.agenda.define('contract.once', async () => void runs.push(name));
      await Promise.all([a.agenda.start(), b.agenda.start()]);
      for (let i = 0; i < 5; i++) await a.agenda.now('contract.once', { i });
      await until(() => runs.length >= 5, 800);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(runs).toHaveLength(5);
    });

    it('keeps one schedule per monitor, and removes only the one asked', async () => {
      const store = await worker();
      const jobs = jobsOn(store);
      const from = new Date();
      await jobs.reschedule('monitor-a', active('daily', from));
      await jobs.reschedule('monitor-b', active('weekly', from));
      await jobs.reschedule('monitor-a', active('hourly', from));
      const listed = await store.agenda.queryJobs({ name: JOB.monitorSchedule });
      const byMonitor = new Map(listed.jobs.map((job) => [(job.data as { monitorId: string }).monitorId, job]));
      expect([...byMonitor.keys()].sort()).toEqual(['monitor-a', 'monitor-b']);
      expect(listed.jobs).toHaveLength(2);
      expect(new Date(byMonitor.get('monitor-a')!.nextRunAt!).getTime()).toBe(from.getTime() + 3_600_000);
      await jobs.unschedule('monitor-a');
      const left = await store.agenda.queryJobs({ name: JOB.monitorSchedule });
      expect(left.jobs.map((job) => (job.data as { monitorId: string }).monitorId)).toEqual(['monitor-b']);
    });

    it('keeps one schedule per monitor when ten changes of it race', async () => {
      const store = await worker();
      const jobs = jobsOn(store);
      const from = new Date();
      await Promise.all(Array.from({ length: 10 }, (_, i) => jobs.reschedule('monitor-raced', active(i === 9 ? 'weekly' : 'daily', from))));
      const listed = await store.agenda.queryJobs({ name: JOB.monitorSchedule, data: { monitorId: 'monitor-raced' } });
      expect(listed.jobs).toHaveLength(1);
    });

    it('tells which monitors have a schedule, and of which interval', async () => {
      const store = await worker();
      const jobs = jobsOn(store);
      const from = new Date();
      await jobs.reschedule('held-daily', active('daily', from));
      await jobs.reschedule('held-weekly', active('weekly', from));
      expect(await jobs.schedulesOf(['held-daily', 'held-weekly', 'held-none'])).toEqual(
        new Map([
          ['held-daily', 'daily'],
          ['held-weekly', 'weekly'],
        ]),
      );
      expect(await jobs.schedulesOf(['held-weekly'])).toEqual(new Map([['held-weekly', 'weekly']]));
      expect(await jobs.schedulesOf(['held-none'])).toEqual(new Map());
    });

    it.skipIf(!backend.database)('saves a schedule within a transaction of the service as Agenda’s own save does, and Agenda runs it', async () => {
      const store = await worker();
      const fired: string[] = [];
      const monitors = { queueScheduledRun: async (monitorId: string) => (fired.push(monitorId), { id: 'run' }) } as unknown as MonitorService;
      // The jobs' clock an hour behind, so the hourly schedules made now are due at once for Agenda, which runs on real time.
      const changedAt = new Date(Date.now() - 3_600_000 - 1_000);
      const jobs = jobsOn(store, { monitors: () => monitors, clock: () => changedAt });
      const db = backend.database!();

      const within = await db.transaction((tx) => jobs.scheduleWithin(tx, 'monitor-within', { schedule: 'hourly', status: 'active', changedAt }));
      expect(within).toEqual({ nextRunAt: new Date(changedAt.getTime() + 3_600_000) });
      await jobs.reschedule('monitor-saved', active('hourly', changedAt));
      const rows = await db.all<Record<string, unknown>>(`select * from "agenda_jobs" where "data"->>'monitorId' in ('monitor-saved', 'monitor-within') order by "data"->>'monitorId'`);
      const [saved, written] = rows.map(({ id, data, created_at, updated_at, ...row }) => row);
      expect(rows).toHaveLength(2);
      expect(written).toEqual(saved);

      await store.agenda.start();
      await until(() => fired.includes('monitor-within'));
      const [after] = (await store.agenda.queryJobs({ name: JOB.monitorSchedule, data: { monitorId: 'monitor-within' } })).jobs;
      // Fired, and repeating: its next firing an hour after this one.
      expect(new Date(after.nextRunAt!).getTime()).toBeGreaterThan(Date.now() + 3_500_000);
      expect(await jobs.schedulesOf(['monitor-within'])).toEqual(new Map([['monitor-within', 'hourly']]));
    });

    // Instances race only on a shared server: PGlite has one owner process.
    it.skipIf(!backend.sharedByInstances)('keeps one schedule per monitor when ten changes of it race on two instances', async () => {
      const stores = [await worker(), await worker()];
      const [a, b] = stores.map((store) => jobsOn(store));
      const from = new Date();
      await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).reschedule('monitor-raced-twice', active(i === 9 ? 'weekly' : 'daily', from))));
      const listed = await stores[0].agenda.queryJobs({ name: JOB.monitorSchedule, data: { monitorId: 'monitor-raced-twice' } });
      expect(listed.jobs).toHaveLength(1);
    });

    it('gives a job whose worker stopped touching it to another worker once its lock expires', async () => {
      const dead = await worker(300);
      const alive = await worker(300);
      let deadStarted = false;
      const done: string[] = [];
      dead.agenda.define('contract.stuck', (_job: Job) => {
        deadStarted = true;
        return new Promise<void>(() => {});
      });
      await dead.agenda.start();
      await dead.agenda.now('contract.stuck', {});
      await until(() => deadStarted);
      alive.agenda.define('contract.stuck', async () => void done.push('alive'));
      await alive.agenda.start();
      // Polled, not notified, on PGlite: allow for a loaded machine.
      await until(() => done.length === 1, 800);
      expect(done).toEqual(['alive']);
    });

    it('drains a running job up to the bound', async () => {
      const store = await worker();
      let started = false;
      let finished = false;
      store.agenda.define('contract.slow', async () => {
        started = true;
        await new Promise((resolve) => setTimeout(resolve, 100));
        finished = true;
      });
      await store.agenda.start();
      await store.agenda.now('contract.slow', {});
      await until(() => started);
      await store.agenda.drain({ timeout: 5_000 });
      expect(finished).toBe(true);
    });
  });
}

contract(sqlBackend());

const mongo = process.env.MONGODB_URL;
describe.skipIf(!mongo)('job store contract: mongodb (skipped: MONGODB_URL not set; no MongoDB server on this machine)', () => {
  if (mongo) contract(mongoBackend(mongo));
  it('has a MongoDB server to run against', () => expect(mongo).toBeTruthy());
});
