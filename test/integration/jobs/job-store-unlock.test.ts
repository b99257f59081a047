import type { JobParameters } from 'agenda';
import pg from 'pg';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { JOBS_TABLE } from '../../../adapters/db/migrations/Migration20261124000000_jobs.ts';
import { embeddedDatabase, initOrm, type Orm } from '../../../adapters/db/orm.ts';
import { openJobStore, type JobStore, type JobStoreOptions } from '../../../jobs/job-store.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';

/**
 * Agenda calls the job table's `unlockJob` without awaiting it (jobs/settling-repository.ts): whatever happens to that
 * call must happen inside it, never as a rejection nobody handles.
 */
let db: TestDatabase;
let orm: Orm;
beforeAll(async () => {
  db = await createTestDatabase();
  orm = await initOrm({ databaseUrl: db.databaseUrl, dataDir: db.dataDir });
});
afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
});

async function store(options: Partial<JobStoreOptions> = {}) {
  const database = db.databaseUrl ? { databaseUrl: db.databaseUrl } : { pglite: embeddedDatabase(orm) };
  // No second scan during the test: only the one Agenda starts with.
  return openJobStore({ ...database, processEvery: 60_000, ...options });
}

it('an unlock that fails is reported to onError, as an unlock (its own log message), and does not reject', async () => {
  const errors: unknown[] = [];
  const jobs = await store({ onError: (error, failure) => errors.push([failure, error]) });
  onTestFinished(() => jobs.close(0));
  // Not a uuid: the database refuses the statement.
  const unlock = jobs.agenda.db.unlockJob({ _id: 'not-a-uuid', name: 'unlock.fails' } as unknown as JobParameters);
  await expect(unlock).resolves.toBeUndefined();
  // Before: logged as "job store connection failed", as the pool's and the LISTEN channel's failures are.
  expect(errors).toEqual([['unlock', expect.objectContaining({ message: expect.stringContaining('uuid') })]]);
});

it('an unlock of the jobs left at stop that fails is reported to onError, as an unlock, and does not reject (close goes on)', async () => {
  const errors: unknown[] = [];
  const jobs = await store({ onError: (error, failure) => errors.push([failure, error]) });
  onTestFinished(() => jobs.close(0));
  await expect(jobs.agenda.db.unlockJobs(['not-a-uuid'])).resolves.toBeUndefined();
  // Before: logged as "job store connection failed", as the pool's and the LISTEN channel's failures are.
  expect(errors).toEqual([['unlock', expect.objectContaining({ message: expect.stringContaining('uuid') })]]);
});

interface HeldJobTable {
  /** Resolves once a job-store statement is waiting on the hold (on PGlite: once Agenda's lookup is sent). */
  arrived: Promise<void>;
  release(): Promise<void>;
}

/** Holds every statement on the job table until released: on PostgreSQL by a table lock, on PGlite by a transaction. */
async function holdJobTable(jobs: JobStore): Promise<HeldJobTable> {
  if (db.databaseUrl) {
    const client = new pg.Client({ connectionString: db.databaseUrl });
    await client.connect();
    await client.query('BEGIN');
    await client.query(`LOCK TABLE "${JOBS_TABLE}" IN EXCLUSIVE MODE`);
    // The activity view is read once per transaction unless its snapshot is cleared.
    const waiting = async () => {
      await client.query('SELECT pg_stat_clear_snapshot()');
      const activity = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%${JOBS_TABLE}%'`;
      return (await client.query<{ n: number }>(activity)).rows[0]!.n;
    };
    const arrived = (async () => {
      while ((await waiting()) === 0);
    })();
    return {
      arrived,
      release: async () => {
        await client.query('COMMIT');
        await client.end();
      },
    };
  }
  // The job store's statements over the socket wait for PGlite's transaction lock (adapters/db/socket-served-pglite.ts).
  // The socket is served in the embedded database's worker, out of this thread's reach: a lookup that Agenda has sent
  // is one that answers only once the transaction ends.
  const pglite = embeddedDatabase(orm);
  if (!pglite) throw new Error('neither a database URL nor PGlite');
  let opened!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const transaction = pglite.transaction(async () => {
    opened();
    await released;
  });
  await open;
  let arrive!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const repository = jobs.agenda.db;
  const lookup = repository.getNextJobToRun.bind(repository);
  repository.getNextJobToRun = (...args) => (arrive(), lookup(...args));
  return {
    arrived,
    release: async () => {
      repository.getNextJobToRun = lookup;
      release();
      await transaction;
    },
  };
}

it('a job whose lookup is in flight when close begins is unlocked by the close and never runs', async () => {
  const jobs = await store();
  const reader = await store();
  onTestFinished(() => reader.close(0));
  const runs: string[] = [];
  jobs.agenda.define('unlock.in-flight', async () => {
    runs.push('ran');
  });
  await jobs.agenda.schedule(new Date(), 'unlock.in-flight');

  // Agenda's first scan sends its lookup while the table is held: it answers only after the close has begun.
  const held = await holdJobTable(jobs);
  await jobs.agenda.start();
  await held.arrived;
  const closed = jobs.close(0);
  await held.release();
  await closed;

  const [job] = (await reader.agenda.queryJobs({ name: 'unlock.in-flight' })).jobs;
  // Before: locked by the lookup after stop had worked out what to unlock, out of every worker's reach for the lock
  // lifetime (2 min).
  expect(job?.lockedAt ?? null).toBeNull();
  expect(runs).toEqual([]);
  // An unlock Agenda asks after the close (a job it held turning out due later, the clock moved back) neither runs on
  // the ended pool nor rejects.
  await expect(jobs.agenda.db.unlockJob({ ...job!, lockedAt: new Date() })).resolves.toBeUndefined();
});

it('a job whose lookup answered just as close began is not left locked: Agenda holds it before stop looks', async () => {
  const jobs = await store();
  const reader = await store();
  onTestFinished(() => reader.close(0));
  jobs.agenda.define('unlock.just-found', async () => {});
  await jobs.agenda.schedule(new Date(), 'unlock.just-found');
  const repository = jobs.agenda.db;
  const lookup = repository.getNextJobToRun.bind(repository);
  let begun!: (close: { closed: Promise<void> }) => void;
  const closeBegun = new Promise<{ closed: Promise<void> }>((resolve) => (begun = resolve));
  // The close begins in the microtasks that carry the lookup's answer to Agenda, before Agenda holds the job.
  repository.getNextJobToRun = async (...args) => {
    const job = await lookup(...args);
    if (job) begun({ closed: jobs.close(10_000) });
    return job;
  };
  await jobs.agenda.start();
  await (await closeBegun).closed;

  const [job] = (await reader.agenda.queryJobs({ name: 'unlock.just-found' })).jobs;
  // Without letting those microtasks run before stop: stop missed the job, and Agenda then held it, locked, not run.
  expect(job?.lockedAt ?? null).toBeNull();
});

it('close unlocks the jobs this worker locked but had not started, and lets the running one finish', async () => {
  const jobs = await store();
  const reader = await store();
  onTestFinished(() => reader.close(0));
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  let finish!: () => void;
  const held = new Promise<void>((resolve) => (finish = resolve));
  const runs: string[] = [];
  // One at a time: Agenda's first scan locks both due jobs, runs one and queues the other.
  jobs.agenda.define<{ n: string }>(
    'unlock.queued',
    async (job) => {
      runs.push(job.attrs.data.n);
      started();
      await held;
    },
    { concurrency: 1 },
  );
  await jobs.agenda.schedule(new Date(), 'unlock.queued', { n: 'first' });
  await jobs.agenda.schedule(new Date(), 'unlock.queued', { n: 'second' });
  await jobs.agenda.start();
  await running;
  const before = (await reader.agenda.queryJobs({ name: 'unlock.queued' })).jobs;
  expect(before.map((job) => job.lockedAt)).toEqual([expect.any(Date), expect.any(Date)]);

  const closed = jobs.close(10_000);
  finish();
  await closed;

  expect(runs).toHaveLength(1);
  const after = (await reader.agenda.queryJobs({ name: 'unlock.queued' })).jobs;
  const ran = (job: (typeof after)[number]) => (job.data as { n: string }).n === runs[0];
  const notStarted = after.find((job) => !ran(job));
  // Before: still locked, out of other workers' reach until its lock lifetime (2 min) ran out.
  expect(notStarted?.lockedAt ?? null).toBeNull();
  expect(notStarted?.lastRunAt ?? null).toBeNull();
  // Drain semantics: the running job finished before close resolved.
  expect(after.find(ran)?.lastFinishedAt).toEqual(expect.any(Date));
});
