import type { JobParameters } from 'agenda';
import { afterAll, beforeAll, expect, it, onTestFinished, vi } from 'vitest';
import { embeddedPglite, initOrm, type Orm } from '../../../adapters/db/orm.ts';
import { openJobStore, type JobStoreOptions } from '../../../jobs/job-store.ts';
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
  const database = db.databaseUrl ? { databaseUrl: db.databaseUrl } : { pglite: await embeddedPglite(orm) };
  // No second scan during the test: only the one Agenda starts with.
  return openJobStore({ ...database, processEvery: 60_000, ...options });
}

it('an unlock that fails is reported to onError and does not reject', async () => {
  const errors: unknown[] = [];
  const jobs = await store({ onError: (error) => errors.push(error) });
  onTestFinished(() => jobs.close(0));
  // Not a uuid: the database refuses the statement.
  const unlock = jobs.agenda.db.unlockJob({ _id: 'not-a-uuid', name: 'unlock.fails' } as unknown as JobParameters);
  await expect(unlock).resolves.toBeUndefined();
  expect(errors).toEqual([expect.objectContaining({ message: expect.stringContaining('uuid') })]);
});

it('an unlock of the jobs left at stop that fails is reported to onError and does not reject (close goes on)', async () => {
  const errors: unknown[] = [];
  const jobs = await store({ onError: (error) => errors.push(error) });
  onTestFinished(() => jobs.close(0));
  await expect(jobs.agenda.db.unlockJobs(['not-a-uuid'])).resolves.toBeUndefined();
  expect(errors).toEqual([expect.objectContaining({ message: expect.stringContaining('uuid') })]);
});

it('an unlock Agenda asks after the job store closed (its lookup was in flight, the clock moved back) neither runs nor rejects', async () => {
  const jobs = await store();
  jobs.agenda.define('unlock.late', async () => {});
  await jobs.agenda.schedule(new Date(), 'unlock.late');
  const repository = jobs.agenda.db;

  // Agenda's first scan finds and locks the job; its answer is held until the store has closed.
  const lookup = repository.getNextJobToRun.bind(repository);
  let found!: () => void;
  const lookedUp = new Promise<void>((resolve) => (found = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  repository.getNextJobToRun = async (...args) => {
    const job = await lookup(...args);
    found();
    await released;
    return job;
  };
  const unlock = repository.unlockJob.bind(repository);
  let asked!: (call: { unlock: Promise<void> }) => void;
  const unlockAsked = new Promise<{ unlock: Promise<void> }>((resolve) => (asked = resolve));
  repository.unlockJob = (job) => {
    const call = unlock(job);
    asked({ unlock: call });
    return call;
  };

  await jobs.agenda.start();
  await lookedUp;
  await jobs.close(0);
  // A day back: the job Agenda now processes is due more than processEvery from now, so Agenda unlocks it.
  vi.useFakeTimers({ toFake: ['Date'] });
  onTestFinished(() => void vi.useRealTimers());
  vi.setSystemTime(Date.now() - 86_400_000);
  release();
  // Before: the unlock ran on the ended pool and rejected ("Cannot use a pool after calling end on the pool").
  await expect((await unlockAsked).unlock).resolves.toBeUndefined();
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
