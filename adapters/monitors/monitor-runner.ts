import { randomUUID } from 'node:crypto';
import type { CreditsService, Reservation } from '../billing/credits-service.ts';
import { CreditsRefusal } from '../billing/credits-refusal.ts';
import { isUniqueViolation, toInt, type SqlDb } from '../db/sql.ts';
import { logger } from '../logging/logger.ts';
import { UpstreamError } from '../upstream/upstream-error.ts';
import { insertUsageCharges } from '../usage/usage-charges.ts';
import { insertEvents, type NewEvent } from '../webhooks/webhook-service.ts';
import { planReads, type PlannedRead, type PlatformReaders } from './monitor-fetch.ts';
import { dedupe, keysOf, type Candidate } from './monitor-items.ts';
import { iso, json, storedFields, toMonitor, toRun, watchesSame, type MonitorRow, type RunRow } from './monitor-rows.ts';
import type { MonitorSource, MonitorTarget } from './monitor-targets.ts';

export interface MonitorRunnerOptions {
  db: SqlDb;
  credits: CreditsService;
  platforms: PlatformReaders;
  clock: () => Date;
  newEventId(): string;
  /** A run retried this many times (its worker died each time) is marked failed. */
  maxAttempts?: number;
  /** A running run is taken over by another worker only once its last start is this old (its worker died). */
  leaseMs?: number;
  /** A run refused because the account's credits are held by its calls in flight tries again after this long… */
  heldRetryMs?: number;
  /** …until it was queued this long ago: then it fails as `credits_held`. */
  heldPatienceMs?: number;
  /** A run's charge committed: the instance's memo of the account's balance is out of date (known-balances.ts). */
  balanceMoved?: (workspaceId: string) => void;
}

export interface RunOutcome {
  /**
   * `finished`: it had ended already; `busy`: try it again at `retryAt` (another worker holds it until then, in case
   * that worker died; or it was queued again to wait for credits held by the account's other calls).
   */
  status: 'succeeded' | 'failed' | 'skipped' | 'finished' | 'busy';
  retryAt?: Date;
  /** Events written for webhooks, so the caller can deliver them now. */
  events: number;
}

/** The run ended under the worker's feet (its monitor was deleted): nothing to record, nothing charged. */
class RunGone extends Error {
  constructor(runId: string) {
    super(`run ${runId} is no longer running`);
    this.name = 'RunGone';
  }
}

/** What a run holds before it reads: its minimum, and its worst case (the most it can be charged). */
export interface RunHold {
  minimumCredits: number;
  reserveCredits: number;
}

/**
 * The hold a run of these reads takes: 1 credit per platform read at least, and the most the reads can cost. Each read
 * is cut at the items its bound counts (monitor-fetch.ts), so a run is never charged more than this: it is the run's
 * worst case, which a dry run or a credit ceiling of the call that queues the run prices it by.
 */
export function runHold(reads: readonly Pick<PlannedRead, 'maxCredits'>[]): RunHold {
  return { minimumCredits: reads.length, reserveCredits: reads.reduce((sum, read) => sum + read.maxCredits, 0) };
}

/** The hold of a run of this target from these sources: planning the reads reads nothing. */
export function holdOfRun(target: MonitorTarget, sources: readonly MonitorSource[], platforms: PlatformReaders): RunHold {
  return runHold(planReads(target, sources, platforms));
}

const DEFAULT_MAX_ATTEMPTS = 3;
const DEFAULT_LEASE_MS = 120_000;
const DEFAULT_HELD_RETRY_MS = 1_000;
const DEFAULT_HELD_PATIENCE_MS = 120_000;

function describeFailure(error: unknown): string {
  if (error instanceof CreditsRefusal) {
    if (error.code === 'spending_paused') return 'spending_paused: spending is paused on this account; nothing was read or charged.';
    if (error.code === 'insufficient_credits') return `insufficient_credits: the balance (${error.balance}) does not cover this run; nothing was charged.`;
    return `credits_held: the account's credits are held by its calls in flight (available ${error.available}); nothing was charged.`;
  }
  if (error instanceof UpstreamError) {
    const what = { unavailable: 'was unreachable', invalid: 'answered in a form the service cannot read', not_found: 'has no such item', not_public: 'does not show it publicly', refused: 'refused the request as invalid' }[error.kind];
    return `upstream_${error.kind}: the ${error.platform} platform ${what}; nothing was charged.`;
  }
  return 'internal_error: the run failed unexpectedly; nothing was charged.';
}

/**
 * Executes one queued run: reads the target, keeps only what the monitor never saw, and commits in one transaction the
 * results, the seen keys, the webhook events and the charge for what was read. A run whose worker died is run again:
 * until that transaction commits nothing is recorded or charged (the credit hold expires), and after it the run is
 * finished and not run again, so a run is never billed twice.
 */
export function createMonitorRunner(options: MonitorRunnerOptions) {
  const { db, credits, clock } = options;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const heldRetryMs = options.heldRetryMs ?? DEFAULT_HELD_RETRY_MS;
  const heldPatienceMs = options.heldPatienceMs ?? DEFAULT_HELD_PATIENCE_MS;

  /**
   * Puts a run refused for credits held by the account's other calls (its other runs, usually) back in the queue, to
   * try once they have settled: held credits are contention, not a balance too low, and a run tried again then either
   * runs or fails for what is true of the balance (`insufficient_credits`). Not counted as a start (`worker_lost`).
   * False when it waited long enough already, or another run of the monitor is queued (that one will run).
   */
  async function requeueHeld(run: RunRow, now: Date): Promise<boolean> {
    if (now.getTime() - new Date(iso(run.created_at)).getTime() >= heldPatienceMs) return false;
    try {
      const requeued = await db.all(
        `update "monitor_run" set "status" = 'queued', "attempts" = "attempts" - 1, "started_at" = null where "id" = ? and "status" = 'running' returning "id"`,
        [run.id],
      );
      return requeued.length > 0;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async function finish(runId: string, status: 'failed' | 'skipped', errorSummary: string, monitor?: MonitorRow): Promise<number> {
    const now = clock();
    return db.transaction(async (tx) => {
      const [run] = await tx.all<RunRow>(
        `update "monitor_run" set "status" = ?, "finished_at" = ?, "error_summary" = ? where "id" = ? and "status" in ('queued', 'running') returning *`,
        [status, now.toISOString(), errorSummary, runId],
      );
      if (!run || status !== 'failed') return 0;
      // A failed run is a run that finished: `lastRunAt` says so (never moved back by a late one).
      const [updated] = await tx.all<MonitorRow>(`update "monitor" set "last_run_at" = greatest("last_run_at", ?::timestamptz) where "id" = ? returning *`, [
        now.toISOString(),
        run.monitor_id,
      ]);
      const current = updated ?? monitor;
      if (!current?.webhook_id) return 0;
      const events = await eventsFor(tx, current, 'monitor.run.failed', [{ monitor: toMonitor(current), run: toRun(run) }], now);
      await insertEvents(tx, events, now);
      return events.length;
    });
  }

  /** Events of one type for the monitor's webhook, if it is active and subscribed to that type. */
  async function eventsFor(tx: { all: SqlDb['all'] }, monitor: MonitorRow, type: string, data: unknown[], at: Date): Promise<NewEvent[]> {
    if (!monitor.webhook_id) return [];
    const [hook] = await tx.all<{ events: unknown; status: string }>(`select "events", "status" from "webhook" where "id" = ?`, [monitor.webhook_id]);
    const events: string[] = typeof hook?.events === 'string' ? JSON.parse(hook.events) : ((hook?.events as string[] | undefined) ?? []);
    if (!hook || hook.status !== 'active' || !events.includes(type)) return [];
    return data.map((item) => ({ webhookId: monitor.webhook_id as string, eventId: options.newEventId(), type, payload: { type, timestamp: at.toISOString(), data: item } }));
  }

  return {
    /** Runs that may have lost their hand-over to a worker: queued for a while, or running past their lease. */
    async stranded(olderThanMs: number): Promise<string[]> {
      const now = clock().getTime();
      const rows = await db.all<{ id: string }>(
        `select "id" from "monitor_run" where ("status" = 'queued' and "created_at" <= ?) or ("status" = 'running' and "started_at" <= ?) limit 100`,
        [new Date(now - olderThanMs).toISOString(), new Date(now - leaseMs).toISOString()],
      );
      return rows.map((row) => row.id);
    },

    async execute(runId: string): Promise<RunOutcome> {
      const now = clock();
      // Claimed by one worker at a time: a queued run, or a running one whose worker stopped (its lease ran out).
      const [run] = await db.all<RunRow>(
        `update "monitor_run" set "status" = 'running', "attempts" = "attempts" + 1, "started_at" = ?
         where "id" = ? and ("status" = 'queued' or ("status" = 'running' and "started_at" <= ?)) returning *`,
        [now.toISOString(), runId, new Date(now.getTime() - leaseMs).toISOString()],
      );
      if (!run) {
        const [current] = await db.all<RunRow>(`select * from "monitor_run" where "id" = ?`, [runId]);
        if (current?.status !== 'running') return { status: 'finished', events: 0 };
        return { status: 'busy', events: 0, retryAt: new Date(new Date(iso(current.started_at)).getTime() + leaseMs + 1) };
      }
      const [monitor] = await db.all<MonitorRow>(`select * from "monitor" where "id" = ?`, [run.monitor_id]);
      if (!monitor) return { status: 'skipped', events: await finish(runId, 'skipped', 'The monitor was deleted.') };
      if (monitor.status !== 'active') return { status: 'skipped', events: await finish(runId, 'skipped', `The monitor is ${monitor.status}.`) };
      if (toInt(run.attempts) > maxAttempts) {
        return { status: 'failed', events: await finish(runId, 'failed', `worker_lost: the run was started ${maxAttempts} times without finishing; nothing was charged.`, monitor) };
      }

      const target = (typeof monitor.target === 'string' ? JSON.parse(monitor.target) : monitor.target) as MonitorTarget;
      const sources = (typeof monitor.sources === 'string' ? JSON.parse(monitor.sources) : monitor.sources) as MonitorSource[];
      const reads = planReads(target, sources, options.platforms);
      let hold: Reservation | undefined;
      try {
        hold = await credits.admit(monitor.workspace_id, runHold(reads));
        const outcomes = await Promise.all(reads.map((read) => read.run()));
        const cost = outcomes.reduce((sum, outcome) => sum + outcome.credits, 0);
        // A hold capped by what the account had is grown to the cost, or the run is refused.
        if (cost > hold.credits) hold = await credits.extend(hold, cost - hold.credits);
        const candidates = outcomes.flatMap((outcome) => outcome.candidates).sort((a, b) => b.createdAt - a.createdAt);
        const filtered = outcomes.reduce((sum, outcome) => sum + outcome.filtered, 0);
        const events = await record(runId, monitor, { candidates, filtered }, hold, cost);
        options.balanceMoved?.(monitor.workspace_id);
        return { status: 'succeeded', events };
      } catch (error) {
        // A hold the run's transaction did not settle (it rolled back, or was never reached) is given back.
        if (hold) await credits.release(hold).catch(() => undefined);
        if (error instanceof RunGone) return { status: 'skipped', events: 0 };
        if (error instanceof CreditsRefusal && error.code === 'credits_held' && (await requeueHeld(run, now))) {
          return { status: 'busy', events: 0, retryAt: new Date(now.getTime() + heldRetryMs) };
        }
        if (!(error instanceof CreditsRefusal) && !(error instanceof UpstreamError)) logger.error({ err: error, runId, monitorId: monitor.id }, 'monitor run failed');
        else logger.warn({ runId, monitorId: monitor.id, reason: describeFailure(error) }, 'monitor run failed');
        return { status: 'failed', events: await finish(runId, 'failed', describeFailure(error), monitor) };
      }
    },
  };

  /**
   * Commits what the run found and charges for it, together. What it found is every item read, as priced: the ones the
   * local checks left out (`filtered`) count in `resultsFound` and `suppressed` like the ones it already knew.
   */
  async function record(runId: string, monitor: MonitorRow, read: { candidates: Candidate[]; filtered: number }, hold: Reservation, cost: number): Promise<number> {
    const { candidates, filtered } = read;
    const now = clock();
    return db.transaction(async (tx) => {
      // Serialises runs of one monitor, so two of them never both report the same new item.
      await tx.all(`select pg_advisory_xact_lock(hashtext('monitor-run:' || ?))`, [monitor.id]);
      const [running] = await tx.all<{ id: string }>(`select "id" from "monitor_run" where "id" = ? and "status" = 'running' for update`, [runId]);
      if (!running) throw new RunGone(runId);
      const keys = [...new Set(candidates.flatMap(keysOf))];
      const seenRows = keys.length ? await tx.all<{ key: string }>(`select "key" from "monitor_seen" where "monitor_id" = ? and "key" in (select jsonb_array_elements_text(?::jsonb))`, [monitor.id, JSON.stringify(keys)]) : [];
      const outcome = dedupe(candidates, new Set(seenRows.map((row) => row.key)));
      const baseline = monitor.baseline_at === null || monitor.baseline_at === undefined;
      // The first run reports nothing (what exists is the baseline), or the newest `backfill` items when asked.
      const reported = baseline ? outcome.fresh.slice(0, toInt(monitor.backfill)) : outcome.fresh;
      const seen = new Set(seenRows.map((row) => row.key));
      const freshKeys = [...new Set(outcome.keys)].filter((key) => !seen.has(key));
      if (freshKeys.length) {
        await tx.all(`insert into "monitor_seen" ("monitor_id", "key", "first_seen_at") select ?, jsonb_array_elements_text(?::jsonb), ? on conflict do nothing`,
          [monitor.id, JSON.stringify(freshKeys), now.toISOString()],);
      }
      const results = [];
      for (const candidate of reported) {
        const result = { id: randomUUID(), monitorId: monitor.id, ...candidate.result, firstSeenAt: now.toISOString() };
        const { columns, exact } = storedFields(result);
        await tx.all(
          `insert into "monitor_result" ("id", "monitor_id", "run_id", "item_type", "source", "external_id", "url", "title", "body", "author_handle", "community_name", "exact_fields", "first_seen_at", "published_at")
           values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            result.id, monitor.id, runId, result.itemType, result.source, columns.externalId, columns.url, columns.title, columns.body, columns.authorHandle, columns.communityName, exact, result.firstSeenAt,
            Number.isFinite(candidate.createdAt) ? new Date(candidate.createdAt).toISOString() : null,
          ],
        );
        results.push(result);
      }
      const suppressed = {
        ...outcome.suppressed,
        ...(filtered > 0 ? { filtered } : {}),
        ...(baseline && outcome.fresh.length > reported.length ? { baseline: outcome.fresh.length - reported.length } : {}),
      };
      const { charged } = await credits.settle(hold, cost, tx);
      if (charged > 0) await insertUsageCharges(tx, [{ workspaceId: monitor.workspace_id, requestId: runId, operationId: 'monitorRun', surface: 'monitor', credits: charged, chargedAt: now }]);
      const [run] = await tx.all<RunRow>(
        `update "monitor_run" set "status" = 'succeeded', "finished_at" = ?, "results_found" = ?, "new_results" = ?, "suppressed" = ?::jsonb, "credits_used" = ?
         where "id" = ? returning *`,
        [now.toISOString(), candidates.length + filtered, results.length, JSON.stringify(suppressed), charged, runId],
      );
      // `next_run_at` is the schedule's, recorded when the schedule fires: a run-now does not move it. A run that read
      // a target since changed (a PATCH committed while it read) is not the new target's baseline: that stays to take.
      const same = watchesSame(json(monitor.target), json(monitor.sources));
      const [updated] = await tx.all<MonitorRow>(
        `update "monitor" set "last_run_at" = ?,
           "baseline_at" = case when "baseline_at" is null and ${same.sql} then ?::timestamptz else "baseline_at" end
         where "id" = ? returning *`,
        [now.toISOString(), ...same.params, now.toISOString(), monitor.id],
      );
      const events = await eventsFor(
        tx,
        updated ?? monitor,
        'monitor.result.created',
        results.map((result) => ({ monitor: toMonitor(updated ?? monitor), run: toRun(run), result })),
        now,
      );
      await insertEvents(tx, events, now);
      return events.length;
    });
  }
}

export type MonitorRunner = ReturnType<typeof createMonitorRunner>;
