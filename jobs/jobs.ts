import type { Agenda, Job } from 'agenda';
import { PostgresJobRepository } from '@agendajs/postgres-backend';
import type pg from 'pg';
import type { MonitorScheduler, MonitorService } from '../adapters/monitors/monitor-service.ts';
import type { MonitorSchedule } from '../adapters/shapes/monitor-shapes.ts';
import type { MonitorRunner } from '../adapters/monitors/monitor-runner.ts';
import { oneAtATimePerKey } from '../adapters/monitors/one-at-a-time.ts';
import type { AttemptTrigger, DeliveryWorker } from '../adapters/webhooks/delivery-worker.ts';
import { isUniqueViolation, type SqlRunner } from '../adapters/db/sql.ts';
import { JOBS_TABLE } from '../adapters/db/migrations/Migration20261124000000_jobs.ts';

/** Job names: one schedule per monitor, one job per queued run, the delivery sweep and housekeeping. */
export const JOB = {
  monitorSchedule: 'monitor.schedule',
  monitorRun: 'monitor.run',
  deliveries: 'webhook.deliveries',
  housekeeping: 'housekeeping',
} as const;

const INTERVAL_MS = { hourly: 3_600_000, daily: 86_400_000, weekly: 7 * 86_400_000 } as const;
type Scheduled = Exclude<MonitorSchedule, 'manual'>;

/** The schedule a job repeating at `interval` is (stored as text on PostgreSQL, a number on MongoDB). */
function scheduleRepeating(interval: unknown): Scheduled | 'unknown' {
  const found = Object.entries(INTERVAL_MS).find(([, ms]) => ms === Number(interval));
  return found ? (found[0] as Scheduled) : 'unknown';
}

/**
 * Agenda's repository for the job table, talking through `tx`: its own statements, run in the caller's transaction.
 * It numbers its parameters (`$1`, in any order); the service's statements take `?` in order, so each becomes one.
 */
function repositoryWithin(tx: SqlRunner): PostgresJobRepository {
  const pool = {
    async query(text: string, values: readonly unknown[] = []) {
      const params: unknown[] = [];
      const rows = await tx.all(
        text.replace(/\$(\d+)/g, (_match, n: string) => (params.push(values[Number(n) - 1]), '?')),
        params,
      );
      return { rows, rowCount: rows.length };
    },
  };
  return new PostgresJobRepository({ pool: pool as unknown as pg.Pool, tableName: JOBS_TABLE, ensureSchema: false });
}

/** A run queued this long without a worker taking it is dispatched again. */
const STRANDED_AFTER_MS = 5 * 60_000;

export interface JobsOptions {
  agenda: Agenda;
  runner: MonitorRunner;
  deliveries: DeliveryWorker;
  /** Set once the monitor service exists (it needs this scheduler to be built). */
  monitors: () => MonitorService;
  /** Periodic clean-up: expired credit holds, expired paging state, runs whose hand-over to a worker was lost. */
  housekeeping: () => Promise<void>;
  onError: (error: unknown, job: string) => void;
  /** How often due webhook deliveries are swept (retries come due on their own schedule). */
  deliverySweepMs?: number;
  /** The job store keeps its jobs in the service's own database (table `agenda_jobs`), not in MongoDB. */
  jobsInDatabase: boolean;
  /** Now, for a schedule's next firing (a schedule never starts in the past). */
  clock: () => Date;
}

export interface Jobs extends MonitorScheduler {
  start(): Promise<void>;
  /** Attempts a delivery now, in this process, and resolves once the attempt is recorded. */
  deliverNow(deliveryId: string, trigger: AttemptTrigger): Promise<void>;
}

/**
 * The service's jobs on Agenda. A run is a job of its own whose data names a run row; the row, not the job, is the
 * truth (queued, running, finished), so a job picked up twice or after a worker died does no harm.
 */
export function createJobs(options: JobsOptions): Jobs {
  const { agenda } = options;
  const guarded =
    <Data>(name: string, work: (job: Job<Data>) => Promise<void>) =>
    async (job: Job<Data>) => {
      try {
        await work(job);
      } catch (error) {
        options.onError(error, name);
        throw error;
      }
    };

  agenda.define<{ monitorId: string }>(
    JOB.monitorSchedule,
    guarded(JOB.monitorSchedule, async (job) => {
      // Agenda has already computed this schedule's next firing: the monitor shows that time.
      const queued = await options.monitors().queueScheduledRun(job.attrs.data.monitorId, job.attrs.nextRunAt ?? null);
      // Left by a delete whose job store (MongoDB) failed once the row was gone: no monitor ever takes its id again.
      if (queued === 'gone') await unschedule(job.attrs.data.monitorId);
    }),
  );
  agenda.define<{ runId: string }>(
    JOB.monitorRun,
    guarded(JOB.monitorRun, async (job) => {
      const outcome = await options.runner.execute(job.attrs.data.runId);
      // Another worker holds the run: look again when its lease runs out, in case that worker has died.
      if (outcome.status === 'busy' && outcome.retryAt) await agenda.schedule(outcome.retryAt, JOB.monitorRun, job.attrs.data);
      // Its events start in the free delivery slots now, not at the next sweep; their attempts are not waited for (a
      // slow receiver holds its own slot, not this run's job).
      if (outcome.events > 0) await options.deliveries.sweep();
    }),
    { concurrency: 4 },
  );
  // Fills the free delivery slots and ends; the attempts go on in the worker, which refills each slot as it frees.
  agenda.define(
    JOB.deliveries,
    guarded(JOB.deliveries, async () => {
      await options.deliveries.sweep();
    }),
    { concurrency: 1 },
  );
  agenda.define(
    JOB.housekeeping,
    guarded(JOB.housekeeping, async () => {
      await options.housekeeping();
      // A run whose hand-over to a worker was lost (a crash between its row and its job) is handed over again.
      for (const runId of await options.runner.stranded(STRANDED_AFTER_MS)) await agenda.now(JOB.monitorRun, { runId });
      // An active monitor whose schedule is missing or of another interval (a failed job-store step, an earlier bug).
      await options.monitors().repairSchedules();
    }),
    { concurrency: 1 },
  );

  /**
   * Changes of one monitor's schedule, one at a time in this process: concurrent PATCHes never race inside one
   * instance (on PGlite, the only kind, a race's refused insert breaks the job store's socket connection). Between
   * instances on PostgreSQL the one-schedule-per-monitor index keeps one row; the monitor's turn, which monitors take
   * around these calls, keeps it the latest row's.
   */
  const oneAtATime = oneAtATimePerKey();

  /**
   * The first firing of the schedule that starts at `from` and comes after now: one interval after a change (the
   * usual case), or, for a schedule saved late (a repair), the next time it would have fired, never one in the past.
   */
  function nextFiring(schedule: Scheduled, from: Date): Date {
    const interval = INTERVAL_MS[schedule];
    const elapsed = options.clock().getTime() - from.getTime();
    return new Date(from.getTime() + interval * Math.max(1, Math.floor(elapsed / interval) + 1));
  }

  /** The monitor's schedule as Agenda saves it: one row per monitor, keyed by its id (`every` keeps one per job name). */
  const scheduleJob = (monitorId: string, schedule: Scheduled, nextRunAt: Date) =>
    agenda.create(JOB.monitorSchedule, { monitorId }).repeatEvery(INTERVAL_MS[schedule], { skipImmediate: true }).unique({ 'data.monitorId': monitorId }).schedule(nextRunAt);

  async function saveSchedule(monitor: { id: string; schedule: Scheduled }, from: Date): Promise<Date> {
    const nextRunAt = nextFiring(monitor.schedule, from);
    const save = () => scheduleJob(monitor.id, monitor.schedule, nextRunAt).save();
    try {
      await save();
    } catch (error) {
      // Another instance inserted the row first (the one-schedule-per-monitor index): this save now updates it.
      if (!isUniqueViolation(error)) throw error;
      await save();
    }
    return nextRunAt;
  }

  const cancelSchedule = async (monitorId: string) => {
    await agenda.cancel({ name: JOB.monitorSchedule, data: { monitorId } });
  };
  const unschedule = (monitorId: string) => oneAtATime(monitorId, () => cancelSchedule(monitorId));
  /** What agenda.cancel runs, on the caller's connection (the one-schedule index serves the lookup). */
  const removeWithin = (tx: SqlRunner, monitorId: string) => tx.all(`delete from "${JOBS_TABLE}" where "name" = ? and "data"->>'monitorId' = ?`, [JOB.monitorSchedule, monitorId]);

  return {
    reschedule: (monitorId, row) =>
      oneAtATime(monitorId, async () => {
        // Read here, not when the change was asked for: a change queued behind a later one must not undo it.
        const state = await row.current();
        const nextRunAt =
          state?.status === 'active' && state.schedule !== 'manual' ? await saveSchedule({ id: monitorId, schedule: state.schedule }, state.changedAt) : (await cancelSchedule(monitorId), null);
        if (state) await row.record(nextRunAt);
        return nextRunAt;
      }),
    async scheduleWithin(tx, monitorId, state) {
      if (!options.jobsInDatabase) return false;
      if (state.status !== 'active' || state.schedule === 'manual') return (await removeWithin(tx, monitorId), { nextRunAt: null });
      const nextRunAt = nextFiring(state.schedule, state.changedAt);
      // What the job's save() runs (its repository's statements), on the caller's connection; save() then only tells
      // waiting workers of a job due within their next look, which a schedule at least an hour away never is.
      await repositoryWithin(tx).saveJob(scheduleJob(monitorId, state.schedule, nextRunAt).toJson(true), { lastModifiedBy: agenda.attrs.name || undefined });
      return { nextRunAt };
    },
    async schedulesOf(monitorIds) {
      const wanted = new Set(monitorIds);
      // One monitor: its own row; more: every schedule, read once (Agenda's query takes one data value, not a list).
      const { jobs } = await agenda.queryJobs(monitorIds.length === 1 ? { name: JOB.monitorSchedule, data: { monitorId: monitorIds[0] } } : { name: JOB.monitorSchedule });
      const held = new Map<string, Scheduled | 'unknown'>();
      for (const job of jobs) {
        const { monitorId } = job.data as { monitorId?: unknown };
        if (typeof monitorId === 'string' && wanted.has(monitorId)) held.set(monitorId, scheduleRepeating(job.repeatInterval));
      }
      return held;
    },
    async unscheduleWithin(tx, monitorId) {
      if (!options.jobsInDatabase) return false;
      await removeWithin(tx, monitorId);
      return true;
    },
    unschedule,
    async enqueueRun(run) {
      await agenda.now(JOB.monitorRun, { runId: run.id });
    },
    deliverNow: (deliveryId, trigger) => options.deliveries.attemptNow(deliveryId, trigger),
    async start() {
      await agenda.start();
      await agenda.every(options.deliverySweepMs ?? 5_000, JOB.deliveries, undefined, { skipImmediate: false });
      await agenda.every(60_000, JOB.housekeeping);
    },
  };
}
