import { randomUUID } from 'node:crypto';
import type { Limits } from '../shapes/account-shapes.ts';
import type { Monitor, MonitorResult, MonitorRun, MonitorSchedule, MonitorStatus } from '../shapes/monitor-shapes.ts';
import { isUniqueViolation, toInt, type SqlDb, type SqlRunner } from '../db/sql.ts';
import { ResourceError } from '../db/resource-error.ts';
import { logger } from '../logging/logger.ts';
import { defaultSources, unreadableSources, type MonitorTarget } from './monitor-targets.ts';
import { iso, json, toMonitor, toResult, toRun, watchesSame, type MonitorRow, type ResultRow, type RunRow } from './monitor-rows.ts';
import type { ScheduleTurns } from './schedule-turns.ts';

/** What a monitor's schedule is made from: its row as it stands. */
export interface ScheduleState {
  schedule: MonitorSchedule;
  status: MonitorStatus;
  /** The row's last change: an interval is counted from it. */
  changedAt: Date;
}

/** The jobs layer as monitors need it: one schedule per monitor, and runs queued now. */
export interface MonitorScheduler {
  /**
   * Creates, changes or removes the monitor's schedule to match its row, and returns when it next runs, or null (not
   * active, `manual`, or gone). The row is read by `current` and the outcome stored by `record`; called in the
   * monitor's turn, so of two changes racing, the schedule left is the latest row's, whatever order they arrive in.
   */
  reschedule(monitorId: string, row: { current(): Promise<ScheduleState | null>; record(nextRunAt: Date | null): Promise<void> }): Promise<Date | null>;
  /**
   * Saves, changes or removes the monitor's schedule, as its row asks, within `tx`, the transaction that inserts or
   * changes the row, where the job store is the service's own database (PostgreSQL, PGlite): so both commit or neither
   * does. Returns when it next runs (null: not on a schedule), or false where the job store is elsewhere (MongoDB):
   * the caller then calls `reschedule` once the row has committed.
   */
  scheduleWithin(tx: SqlRunner, monitorId: string, state: ScheduleState): Promise<{ nextRunAt: Date | null } | false>;
  /** The schedule each of these monitors has in the job store, by its interval; a monitor without one is absent. */
  schedulesOf(monitorIds: readonly string[]): Promise<Map<string, Exclude<MonitorSchedule, 'manual'> | 'unknown'>>;
  /**
   * Removes the monitor's schedule within `tx`, the transaction that deletes the monitor, where the job store is the
   * service's own database (PostgreSQL, PGlite): a statement in `tx`, so both commit or neither does. Returns false
   * where the job store is elsewhere (MongoDB): the caller then calls `unschedule` once the deletion has committed.
   */
  unscheduleWithin(tx: SqlRunner, monitorId: string): Promise<boolean>;
  /** Removes the monitor's schedule through the job store, at once. */
  unschedule(monitorId: string): Promise<void>;
  /** Hands a queued run to a worker. */
  enqueueRun(run: { id: string; monitorId: string }): Promise<void>;
}

export interface MonitorInput {
  name: string;
  target: Record<string, unknown>;
  /** Default: the target kind's own sources. */
  sources?: string[];
  schedule: MonitorSchedule;
  webhookId: string | null;
  backfill: number;
}

export interface MonitorPatch {
  name?: string;
  target?: Record<string, unknown>;
  sources?: string[];
  schedule?: MonitorSchedule;
  webhookId?: string | null;
  status?: MonitorStatus;
}

/** What a monitor watches once the patch is applied. */
export function watchedAfter(current: { target: unknown; sources: unknown }, patch: MonitorPatch): { target: MonitorTarget; sources: string[] } {
  const target = (patch.target ?? current.target) as MonitorTarget;
  // A new target of another platform brings that platform's sources unless sources are given too.
  return { target, sources: patch.sources ?? (patch.target ? defaultSources(target) : (current.sources as string[])) };
}

export interface MonitorService {
  create(workspaceId: string, input: MonitorInput): Promise<Monitor>;
  get(workspaceId: string, id: string): Promise<Monitor>;
  list(workspaceId: string, limit: number): Promise<Monitor[]>;
  update(workspaceId: string, id: string, patch: MonitorPatch): Promise<Monitor>;
  remove(workspaceId: string, id: string): Promise<{ id: string; deleted: true }>;
  runs(workspaceId: string, id: string, limit: number): Promise<MonitorRun[]>;
  results(workspaceId: string, id: string, limit: number): Promise<MonitorResult[]>;
  /** Platforms a monitor reads or holds results of (its sources, and any results read before they changed); [] for none of this account's. */
  platformsOf(workspaceId: string, id: string): Promise<string[]>;
  /** Platforms whose results the monitors attached to a webhook send it; [] for none. */
  platformsSentTo(workspaceId: string, webhookId: string): Promise<string[]>;
  /** Queues a run unless one is already queued (then that one is returned). */
  runNow(workspaceId: string, id: string): Promise<{ jobId: string; queued: true }>;
  /**
   * Queues a scheduled run of a monitor (the jobs layer calls this when its schedule fires, with its next firing):
   * its run, or why none: the monitor is not active on a schedule (or its hourly firing is skipped), or it no longer exists.
   */
  queueScheduledRun(monitorId: string, nextRunAt: Date | null): Promise<{ id: string } | 'not_scheduled' | 'gone'>;
  /**
   * Schedules each active monitor whose schedule is missing or repeats at another interval than its row's (housekeeping
   * calls this): in the monitor's turn, looked at again there, as any change of its schedule. Logs each one it
   * repaired and returns them.
   */
  repairSchedules(): Promise<RepairedSchedule[]>;
}

export interface RepairedSchedule {
  monitorId: string;
  schedule: MonitorSchedule;
  /** What the job store held: a schedule of another interval, or none. */
  found: string | null;
  nextRunAt: Date | null;
}

export interface MonitorServiceOptions {
  db: SqlDb;
  scheduler: MonitorScheduler;
  /** Every change of a monitor's schedule, and its deletion, runs in the monitor's turn. */
  turns: ScheduleTurns;
  limits(workspaceId: string): Promise<Limits | null>;
  clock: () => Date;
}

const DAY_MS = 86_400_000;
/** Half an hourly interval: an hourly schedule's 24th firing after a run counts as a day after it (`hourlyOverdrawn`). */
const DAY_SLACK_MS = 1_800_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
function notFound(resource: 'monitor' | 'webhook', id: string): ResourceError {
  return new ResourceError('not_found', `No ${resource} ${id} in this account.`, { resource, id });
}

export function createMonitorService(options: MonitorServiceOptions): MonitorService {
  const { db, scheduler, turns, clock } = options;

  async function requireMonitor(runner: SqlRunner, workspaceId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<MonitorRow> {
    if (!UUID.test(id)) throw notFound('monitor', id);
    const [row] = await runner.all<MonitorRow>(`select * from "monitor" where "id" = ? and "workspace_id" = ?${options.forUpdate ? ' for update' : ''}`, [id, workspaceId]);
    if (!row) throw notFound('monitor', id);
    return row;
  }

  async function requireWebhook(runner: SqlRunner, workspaceId: string, id: string | null | undefined): Promise<void> {
    if (id === null || id === undefined) return;
    const rows = UUID.test(id) ? await runner.all(`select 1 from "webhook" where "id" = ? and "workspace_id" = ?`, [id, workspaceId]) : [];
    if (!rows.length) throw notFound('webhook', id);
  }

  async function tierLimits(workspaceId: string): Promise<Limits> {
    const limits = await options.limits(workspaceId);
    if (!limits) throw notFound('monitor', workspaceId);
    return limits;
  }

  /** A target reads only its own platform(s): a `subforum` monitor cannot read the microblog. */
  function checkSources(target: MonitorTarget, sources: readonly string[]): void {
    const unreadable = unreadableSources(target, sources);
    if (unreadable.length) {
      throw new ResourceError('invalid', `A ${target.kind} monitor cannot read ${unreadable.join(', ')}.`, { field: 'sources', unreadable, allowed: defaultSources(target) });
    }
  }

  /**
   * The tier's monitor ceiling, counted over the monitors that are not archived (archived ones never run again unless
   * brought back, which counts them again). Under the workspace's creation lock, so two creations (or a creation and an
   * unarchiving) at once cannot both pass it.
   */
  async function checkMonitorCeiling(tx: SqlRunner, workspaceId: string, limits: Limits): Promise<void> {
    await tx.all(`select pg_advisory_xact_lock(hashtext('monitor-create:' || ?))`, [workspaceId]);
    const [{ count }] = await tx.all<{ count: unknown }>(`select count(*) as "count" from "monitor" where "workspace_id" = ? and "status" <> 'archived'`, [workspaceId]);
    if (toInt(count) >= limits.maxMonitors) {
      throw new ResourceError('limit', `The ${limits.tier} tier allows ${limits.maxMonitors} monitor${limits.maxMonitors === 1 ? '' : 's'} that are not archived; archive or delete one, or buy credits to raise the tier.`, {
        limit: 'maxMonitors',
        maxMonitors: limits.maxMonitors,
        tier: limits.tier,
      });
    }
  }

  function checkSchedule(limits: Limits, schedule: MonitorSchedule | undefined): void {
    if (schedule === 'hourly' && !limits.hourlySchedules) {
      throw new ResourceError('limit', `The ${limits.tier} tier does not include hourly schedules; daily and weekly are on every tier.`, {
        limit: 'hourlySchedules',
        tier: limits.tier,
      });
    }
  }

  /**
   * The monitor's row as a turn's change of its schedule reads and records it: read again in the turn, not the row the
   * request wrote (a later change may have committed since, or a delete).
   */
  function rowInTurn(turn: SqlDb, id: string) {
    let recorded: MonitorRow | undefined;
    return {
      recorded: () => recorded,
      async current(): Promise<ScheduleState | null> {
        const [now] = await turn.all<MonitorRow>(`select * from "monitor" where "id" = ?`, [id]);
        // Counted from the change itself, so a new monitor's next run is exactly one interval after its creation.
        return now ? { schedule: now.schedule, status: now.status, changedAt: new Date(iso(now.updated_at)) } : null;
      },
      async record(nextRunAt: Date | null) {
        [recorded] = await turn.all<MonitorRow>(`update "monitor" set "next_run_at" = ? where "id" = ? returning *`, [nextRunAt?.toISOString() ?? null, id]);
      },
    };
  }

  /** Schedules the monitor as its row now stands, in its turn, and returns the row with when it next runs. */
  async function applySchedule(row: MonitorRow): Promise<MonitorRow> {
    const recorded = await turns.take(row.id, async (turn) => {
      const inTurn = rowInTurn(turn, row.id);
      await scheduler.reschedule(row.id, inTurn);
      return inTurn.recorded();
    });
    return recorded ?? row;
  }

  /**
   * Deletes the monitor and its schedule in its turn, so a change waiting for it then finds no row and schedules
   * nothing. The row and (on a job store in this database) the schedule go in one transaction: whatever step fails,
   * both stay. A job store elsewhere is told once the row is gone, so a failure there leaves a schedule without a
   * monitor, which removes itself when it fires (docs/monitors.md), never an active monitor without its schedule.
   */
  async function deleteMonitor(workspaceId: string, id: string): Promise<void> {
    let removedWithin = false;
    await turns.take(id, (turn) =>
      turn.transaction(async (tx) => {
        // The lock a run takes to record its results: a run in the middle of recording finishes first (or finds its
        // monitor gone), rather than the two deadlocking over the runs, results and seen items the delete cascades to.
        await tx.all(`select pg_advisory_xact_lock(hashtext('monitor-run:' || ?))`, [id]);
        await tx.all(`delete from "monitor" where "id" = ? and "workspace_id" = ?`, [id, workspaceId]);
        removedWithin = await scheduler.unscheduleWithin(tx, id);
      }),
    );
    if (!removedWithin) await scheduler.unschedule(id);
  }

  /**
   * A new monitor's schedule where the job store is outside the database (MongoDB), saved once its row has committed:
   * should that fail, the row is deleted again, so the create's error is true (nothing created). Should the deletion
   * fail too, the monitor stays without its schedule until housekeeping repairs it.
   */
  async function scheduleOrUndo(workspaceId: string, row: MonitorRow): Promise<MonitorRow> {
    try {
      return await applySchedule(row);
    } catch (error) {
      await deleteMonitor(workspaceId, row.id).catch((undo: unknown) =>
        logger.error({ err: undo, monitorId: row.id }, 'monitor create: its schedule failed and its row could not be deleted; housekeeping will schedule it'),
      );
      throw error;
    }
  }

  /**
   * An hourly schedule kept from a tier that had hourly schedules fires hourly, but runs once a day: a firing is skipped
   * while the monitor's last scheduled run was queued under 24 h (less half an hour) ago. The slack is there because a
   * run is queued a little after its firing, by a delay that varies: without it, the firing 24 h later would often
   * find 24 h not quite passed and wait one more hour every day. Run-now and baseline runs (`manual`) do not count:
   * they never move a schedule's firings (as on a daily schedule).
   */
  async function hourlyOverdrawn(monitor: MonitorRow): Promise<boolean> {
    const limits = await options.limits(monitor.workspace_id);
    if (!limits || limits.hourlySchedules) return false;
    const since = new Date(clock().getTime() - DAY_MS + DAY_SLACK_MS).toISOString();
    const recent = await db.all(`select 1 from "monitor_run" where "monitor_id" = ? and "trigger" = 'schedule' and "created_at" > ? limit 1`, [monitor.id, since]);
    return recent.length > 0;
  }

  /** Housekeeping's repair of one monitor's schedule, in its turn: null when, looked at there, it needs none. */
  function repairSchedule(id: string): Promise<RepairedSchedule | null> {
    return turns.take(id, async (turn) => {
      const row = rowInTurn(turn, id);
      const state = await row.current();
      if (!state || state.status !== 'active' || state.schedule === 'manual') return null;
      // A change that had the turn before this one may have saved the schedule since the monitor was listed.
      const found = (await scheduler.schedulesOf([id])).get(id) ?? null;
      if (found === state.schedule) return null;
      return { monitorId: id, schedule: state.schedule, found, nextRunAt: await scheduler.reschedule(id, row) };
    });
  }

  /** Inserts a queued run, or finds the one already queued: the partial unique index makes this atomic. */
  async function queueRun(monitorId: string, trigger: 'schedule' | 'manual'): Promise<{ id: string; created: boolean }> {
    const id = randomUUID();
    try {
      await db.all(`insert into "monitor_run" ("id", "monitor_id", "status", "trigger", "created_at") values (?, ?, 'queued', ?, ?)`, [id, monitorId, trigger, clock().toISOString()]);
      return { id, created: true };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const [queued] = await db.all<{ id: string }>(`select "id" from "monitor_run" where "monitor_id" = ? and "status" = 'queued'`, [monitorId]);
      if (queued) return { id: queued.id, created: false };
      // The queued run started between the insert and the read: queue again.
      return queueRun(monitorId, trigger);
    }
  }

  async function queueAndDispatch(monitorId: string, trigger: 'schedule' | 'manual'): Promise<string> {
    const run = await queueRun(monitorId, trigger);
    // Dispatched again when it already existed: a lost hand-over (a crash after the insert) is repaired by the next call.
    await scheduler.enqueueRun({ id: run.id, monitorId });
    return run.id;
  }

  return {
    async create(workspaceId, input) {
      const sources = input.sources ?? defaultSources(input.target as MonitorTarget);
      checkSources(input.target as MonitorTarget, sources);
      const limits = await tierLimits(workspaceId);
      checkSchedule(limits, input.schedule);
      const now = clock();
      const id = randomUUID();
      const firstRun = { id: randomUUID(), monitorId: id };
      const { row, scheduled } = await db.transaction(async (tx) => {
        await checkMonitorCeiling(tx, workspaceId, limits);
        await requireWebhook(tx, workspaceId, input.webhookId);
        // Its schedule is a row of this transaction too where the job store is this database: whichever step fails,
        // nothing is created, and the client's retry cannot leave two monitors. No turn is needed: until this commits
        // no other change can find the monitor.
        const within = await scheduler.scheduleWithin(tx, id, { schedule: input.schedule, status: 'active', changedAt: now });
        const [created] = await tx.all<MonitorRow>(
          `insert into "monitor" ("id", "workspace_id", "name", "target", "sources", "schedule", "status", "webhook_id", "backfill", "next_run_at", "created_at", "updated_at")
           values (?, ?, ?, ?::jsonb, ?::jsonb, ?, 'active', ?, ?, ?, ?, ?) returning *`,
          [
            id,
            workspaceId,
            input.name,
            JSON.stringify(input.target),
            JSON.stringify(sources),
            input.schedule,
            input.webhookId,
            input.backfill,
            within ? (within.nextRunAt?.toISOString() ?? null) : null,
            now.toISOString(),
            now.toISOString(),
          ],
        );
        // The first run records the baseline (or the backfill) at once, so the next one reports only what is new.
        await tx.all(`insert into "monitor_run" ("id", "monitor_id", "status", "trigger", "created_at") values (?, ?, 'queued', 'manual', ?)`, [
          firstRun.id,
          id,
          now.toISOString(),
        ]);
        return { row: created, scheduled: within !== false };
      });
      const monitor = scheduled ? row : await scheduleOrUndo(workspaceId, row);
      try {
        await scheduler.enqueueRun(firstRun);
      } catch (error) {
        // The monitor is whole and its first run queued: housekeeping hands a queued run nobody took to a worker.
        logger.warn({ err: error, monitorId: id, runId: firstRun.id }, 'monitor created; its first run could not be handed to a worker now, housekeeping will');
      }
      return toMonitor(monitor);
    },

    async get(workspaceId, id) {
      return toMonitor(await requireMonitor(db, workspaceId, id));
    },

    async list(workspaceId, limit) {
      const rows = await db.all<MonitorRow>(`select * from "monitor" where "workspace_id" = ? order by "created_at" desc, "id" limit ?`, [workspaceId, limit]);
      return rows.map(toMonitor);
    },

    async update(workspaceId, id, patch) {
      const schedulePatched = patch.schedule !== undefined || patch.status !== undefined;
      const limits = schedulePatched ? await tierLimits(workspaceId) : undefined;
      // The row is locked from its read to its write: two changes of one monitor at once apply one after the other,
      // neither writing back what it read before the other's change.
      const change = async (tx: SqlRunner) => {
        const current = await requireMonitor(tx, workspaceId, id, { forUpdate: true });
        const now = clock();
        const { target, sources } = watchedAfter({ target: json(current.target), sources: json(current.sources) }, patch);
        checkSources(target, sources);
        const schedule = patch.schedule ?? current.schedule;
        const status = patch.status ?? current.status;
        // Asking for hourly, or to keep or resume an hourly schedule (set before the tier dropped), needs the tier's hourly
        // schedules; a change that names neither schedule nor status (a new name) is not refused for what it leaves.
        if (limits && (patch.schedule === 'hourly' || status === 'active')) checkSchedule(limits, schedule);
        // Bringing an archived monitor back counts it against the ceiling again.
        if (limits && current.status === 'archived' && status !== 'archived') await checkMonitorCeiling(tx, workspaceId, limits);
        await requireWebhook(tx, workspaceId, patch.webhookId);
        // What it watches changed: its next run records the new target's items as a baseline, reporting none of them
        // (`backfill` was the creation's: cleared here, so a new target's baseline never reports old items as new).
        const same = watchesSame(target, sources);
        const [{ rewatched }] = await tx.all<{ rewatched: boolean }>(`select not ${same.sql} as "rewatched" from "monitor" where "id" = ?`, [...same.params, id]);
        // A PATCH that leaves schedule and status as they were keeps the schedule's next firing where it was. One that
        // changes them changes the schedule in this transaction where the job store is this database: the row and its
        // schedule commit together or not at all.
        const rescheduled = schedule !== current.schedule || status !== current.status ? await scheduler.scheduleWithin(tx, id, { schedule, status, changedAt: now }) : undefined;
        const [updated] = await tx.all<MonitorRow>(
          `update "monitor" set "name" = ?, "target" = ?::jsonb, "sources" = ?::jsonb, "schedule" = ?, "status" = ?, "webhook_id" = ?, "updated_at" = ?,
             "baseline_at" = case when ? then null else "baseline_at" end, "backfill" = case when ? then 0 else "backfill" end,
             "next_run_at" = case when ? then ? else "next_run_at" end
           where "id" = ? returning *`,
          [
            patch.name ?? current.name,
            JSON.stringify(target),
            JSON.stringify(sources),
            schedule,
            status,
            patch.webhookId === undefined ? current.webhook_id : patch.webhookId,
            now.toISOString(),
            rewatched,
            rewatched,
            Boolean(rescheduled),
            rescheduled ? (rescheduled.nextRunAt?.toISOString() ?? null) : null,
            id,
          ],
        );
        const resumed = current.status !== 'active' && status === 'active';
        return { updated, rewatched, resumed, scheduleAfter: rescheduled === false };
      };
      // A change of schedule or status takes the monitor's turn, as every change of its schedule does.
      const row = schedulePatched ? await turns.take(id, (turn) => turn.transaction(change)) : await db.transaction(change);
      // A job store outside the database (MongoDB) is told once the row has committed: should that fail, the row stays
      // changed and housekeeping's repair brings the schedule in line within a minute (docs/monitors.md).
      const monitor = row.scheduleAfter ? await applySchedule(row.updated) : row.updated;
      // A new baseline is taken now, as at creation, so nothing published before the next scheduled run is lost in it:
      // for a changed target, or on resuming a monitor whose target changed while it was paused.
      const awaitsBaseline = monitor.baseline_at === null || monitor.baseline_at === undefined;
      if (monitor.status === 'active' && awaitsBaseline && (row.rewatched || row.resumed)) await queueAndDispatch(id, 'manual');
      return toMonitor(monitor);
    },

    async remove(workspaceId, id) {
      await requireMonitor(db, workspaceId, id);
      await deleteMonitor(workspaceId, id);
      return { id, deleted: true };
    },

    async runs(workspaceId, id, limit) {
      await requireMonitor(db, workspaceId, id);
      const rows = await db.all<RunRow>(`select * from "monitor_run" where "monitor_id" = ? order by "created_at" desc, "id" desc limit ?`, [id, limit]);
      return rows.map(toRun);
    },

    async results(workspaceId, id, limit) {
      await requireMonitor(db, workspaceId, id);
      // Newest run first; within a run (one `first_seen_at`), the newest item first.
      const rows = await db.all<ResultRow>(`select * from "monitor_result" where "monitor_id" = ? order by "first_seen_at" desc, "published_at" desc nulls last, "id" desc limit ?`, [id, limit]);
      return rows.map(toResult);
    },

    async platformsOf(workspaceId, id) {
      if (!UUID.test(id)) return [];
      const rows = await db.all<{ source: string }>(
        `select distinct s."source" from "monitor" m
           cross join lateral (select jsonb_array_elements_text(m."sources") as "source"
                               union select r."source" from "monitor_result" r where r."monitor_id" = m."id") s
         where m."id" = ? and m."workspace_id" = ?`,
        [id, workspaceId],
      );
      return rows.map((row) => row.source);
    },

    async platformsSentTo(workspaceId, webhookId) {
      if (!UUID.test(webhookId)) return [];
      const rows = await db.all<{ source: string }>(
        `select distinct jsonb_array_elements_text("sources") as "source" from "monitor" where "webhook_id" = ? and "workspace_id" = ?`,
        [webhookId, workspaceId],
      );
      return rows.map((row) => row.source);
    },

    async runNow(workspaceId, id) {
      const monitor = await requireMonitor(db, workspaceId, id);
      if (monitor.status !== 'active') {
        throw new ResourceError('state', `The monitor is ${monitor.status}: set its status to active to run it.`, { status: monitor.status });
      }
      return { jobId: await queueAndDispatch(id, 'manual'), queued: true };
    },

    async queueScheduledRun(monitorId, nextRunAt) {
      const [monitor] = await db.all<MonitorRow>(
        `update "monitor" set "next_run_at" = ? where "id" = ? and "status" = 'active' and "schedule" <> 'manual' returning *`,
        [nextRunAt?.toISOString() ?? null, monitorId],
      );
      if (monitor?.schedule === 'hourly' && (await hourlyOverdrawn(monitor))) return 'not_scheduled';
      if (monitor) return { id: await queueAndDispatch(monitorId, 'schedule') };
      const [exists] = await db.all(`select 1 from "monitor" where "id" = ?`, [monitorId]);
      return exists ? 'not_scheduled' : 'gone';
    },

    async repairSchedules() {
      const due = await db.all<{ id: string; schedule: MonitorSchedule }>(`select "id", "schedule" from "monitor" where "status" = 'active' and "schedule" <> 'manual'`);
      if (!due.length) return [];
      const held = await scheduler.schedulesOf(due.map((monitor) => monitor.id));
      const repaired: RepairedSchedule[] = [];
      for (const { id, schedule } of due) {
        if (held.get(id) === schedule) continue;
        try {
          const done = await repairSchedule(id);
          if (!done) continue;
          repaired.push(done);
          logger.warn({ monitorId: done.monitorId, schedule: done.schedule, found: done.found, nextRunAt: done.nextRunAt }, 'monitor schedule repaired: it was missing or of another interval');
        } catch (error) {
          // One monitor's failure (its turn busy, the job store away) does not stop the others; the next pass tries again.
          logger.error({ err: error, monitorId: id }, 'monitor schedule repair failed');
        }
      }
      return repaired;
    },
  };
}
