import { randomUUID } from 'node:crypto';
import type { SqlDb } from '../db/sql.ts';
import { toInt } from '../db/sql.ts';
import { logger } from '../logging/logger.ts';
import type { DeliveryRow, WebhookRow, WebhookSecrets } from './webhook-service.ts';
import { iso, json } from '../monitors/monitor-rows.ts';
import { DELIVERY_SLOTS, createDeliverySlots, type SlotLimits } from './delivery-slots.ts';

/** What one attempt to POST an event gave. */
export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responseExcerpt: string | null;
  /** From a `Retry-After` answer, already bounded. */
  retryAfterMs: number | null;
}

/** Sends one signed event to a URL (the SSRF-safe sender). */
export type SendEvent = (request: { url: string; secret: string; eventId: string; timestamp: Date; body: string }) => Promise<AttemptOutcome>;

/** What follows an attempt: the retry schedule, `Retry-After`, 410, and the rule that disables a failing webhook. */
export interface DeliveryPolicy {
  succeeded(outcome: AttemptOutcome): boolean;
  /** When to try again after the `attempts`-th failed attempt; null when retries are exhausted. */
  nextAttemptAt(attempts: number, outcome: AttemptOutcome, now: Date): Date | null;
  /** Whether this failure disables the webhook (410 at once, or failing for too long). */
  disables(outcome: AttemptOutcome, failingSince: Date, now: Date): boolean;
}

export type AttemptTrigger = 'scheduled' | 'manual' | 'redeliver' | 'test';

export interface DeliveryWorkerOptions {
  db: SqlDb;
  secrets: WebhookSecrets;
  send: SendEvent;
  policy: DeliveryPolicy;
  clock: () => Date;
  /** How long a claimed delivery is held by its worker before another may take it (longer than an attempt). */
  leaseMs?: number;
  /** Scheduled attempts in flight at once, in all, per webhook and per workspace (this instance's). */
  slots?: SlotLimits;
  /** A scheduled attempt, or the claim that refills its slot, failed where no caller awaits it. */
  onError?: (error: unknown) => void;
}

export interface DeliveryWorker {
  /**
   * Claims due deliveries into the free slots, fairly across workspaces and webhooks, and starts their attempts;
   * resolves once they are started (each freed slot is refilled as its attempt ends); how many it started.
   */
  sweep(): Promise<number>;
  /** Resolves once no scheduled attempt is in flight or about to start. */
  idle(): Promise<void>;
  /** Attempts one delivery now, whatever its schedule (test, redeliver). */
  attemptNow(deliveryId: string, trigger: AttemptTrigger): Promise<void>;
  /** Claims nothing more; waits up to `waitMs` for the attempts in flight (any left are re-claimed when their lease ends). */
  close(waitMs: number): Promise<void>;
}

const DEFAULT_LEASE_MS = 60_000;

/**
 * SQLSTATEs of text the database cannot hold: `invalid byte sequence` (22021), `untranslatable character` (22P05),
 * and the protocol violation (08P01) both drivers get for a U+0000 in a bound parameter (it ends the wire string
 * early: `insufficient data left in message` from PGlite, `invalid message format` from PostgreSQL); the session
 * survives it.
 */
const UNENCODABLE_CODES = new Set(['22021', '22P05', '08P01']);

/** Whether the database refused a statement for text it cannot encode (a driver may wrap the cause). */
function isUnencodable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    if (UNENCODABLE_CODES.has((current as { code?: unknown }).code as string)) return true;
  }
  return false;
}

/** The error recorded for a failed attempt whose own details (the receiver's answer, its error) could not be stored. */
export const UNSTORABLE_DETAILS = 'the attempt failed; its details could not be stored';

type ClaimedRow = DeliveryRow & Pick<WebhookRow, 'url' | 'secret_ciphertext' | 'failing_since' | 'workspace_id'> & { webhook_status: WebhookRow['status'] };

/**
 * Delivers the outbox. A due delivery is claimed by pushing its `next_attempt_at` past a lease (`FOR UPDATE SKIP
 * LOCKED`), so two workers never attempt it at once; a worker that dies mid-attempt leaves the lease to expire and the
 * delivery is attempted again with the same event id. Every attempt is recorded before the delivery moves on.
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db, clock } = options;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;

  /**
   * Claims, for each workspace not at its limit, its oldest due delivery of a webhook not at its limit, at most
   * `limit`: first those of workspaces with the fewest slots in use, then of the least recently served, then the
   * oldest. One per workspace per claim, and a freed slot goes to whoever has waited longest for one, so an account's
   * overdue backlog (or several accounts') never goes before another's due delivery. The claim re-checks that the row
   * is still due when it locks it (another instance may just have).
   */
  async function claimDue(
    limit: number,
    full: { webhooks: string[]; workspaces: string[] },
    turns: { inUse: Record<string, number>; served: Record<string, number> },
  ): Promise<ClaimedRow[]> {
    const now = clock();
    return db.all<ClaimedRow>(
      `with ranked as (
         select d."id", d."next_attempt_at", w."workspace_id"::text as "workspace",
           row_number() over (partition by w."workspace_id" order by d."next_attempt_at", d."id") as "turn"
         from "webhook_delivery" d join "webhook" w on w."id" = d."webhook_id"
         where d."status" in ('pending', 'retrying') and d."next_attempt_at" <= ? and w."status" = 'active'
           and d."webhook_id"::text not in (select jsonb_array_elements_text(?::jsonb))
           and w."workspace_id"::text not in (select jsonb_array_elements_text(?::jsonb))
       ), due as (
         select d."id" from "webhook_delivery" d join ranked r on r."id" = d."id"
         where r."turn" = 1 and d."status" in ('pending', 'retrying') and d."next_attempt_at" <= ?
         order by coalesce((?::jsonb ->> r."workspace")::int, 0), coalesce((?::jsonb ->> r."workspace")::int, -1),
           r."next_attempt_at", d."id"
         limit ? for update of d skip locked
       )
       update "webhook_delivery" d set "next_attempt_at" = ? from due, "webhook" w
       where d."id" = due."id" and w."id" = d."webhook_id"
       returning d.*, w."url", w."secret_ciphertext", w."failing_since", w."workspace_id", w."status" as "webhook_status"`,
      [now.toISOString(), JSON.stringify(full.webhooks), JSON.stringify(full.workspaces), now.toISOString(), JSON.stringify(turns.inUse), JSON.stringify(turns.served), limit, new Date(now.getTime() + leaseMs).toISOString()],
    );
  }

  /**
   * Takes one delivery now; one still in the schedule is leased so no scheduled attempt runs beside this one. None of a
   * disabled webhook (it may have been disabled since the caller looked): it stays as it is, for when it is active.
   */
  async function claimOne(deliveryId: string): Promise<ClaimedRow | undefined> {
    const lease = new Date(clock().getTime() + leaseMs).toISOString();
    const [row] = await db.all<ClaimedRow>(
      `update "webhook_delivery" d set "next_attempt_at" = case when d."status" in ('pending', 'retrying') then ?::timestamptz else d."next_attempt_at" end
       from "webhook" w where w."id" = d."webhook_id" and d."id" = ? and w."status" = 'active'
       returning d.*, w."url", w."secret_ciphertext", w."failing_since", w."workspace_id", w."status" as "webhook_status"`,
      [lease, deliveryId],
    );
    return row;
  }

  /**
   * Records one attempt and moves its delivery and webhook on, in one transaction. The attempt's number and the
   * delivery's state are read under the delivery's lock, so a redelivery racing a scheduled attempt takes the next
   * number rather than failing on the one taken.
   */
  async function record(row: ClaimedRow, trigger: AttemptTrigger, outcome: AttemptOutcome, now: Date): Promise<void> {
    await db.transaction(async (tx) => {
      // The webhook first, as a delete does (it then cascades to deliveries): the same order, so no deadlock.
      const [webhook] = await tx.all<Pick<WebhookRow, 'failing_since'>>(`select "failing_since" from "webhook" where "id" = ? for update`, [row.webhook_id]);
      if (!webhook) return;
      const [delivery] = await tx.all<Pick<DeliveryRow, 'attempts' | 'status'>>(`select "attempts", "status" from "webhook_delivery" where "id" = ? for update`, [row.id]);
      if (!delivery) return;
      const number = toInt(delivery.attempts) + 1;
      const ok = options.policy.succeeded(outcome);
      const failingSince = webhook.failing_since ? new Date(iso(webhook.failing_since)) : now;
      const disable = !ok && options.policy.disables(outcome, failingSince, now);
      // A redelivery that fails leaves a finished delivery as it was: it is one more attempt, not a new schedule.
      const finished = trigger === 'redeliver' && (delivery.status === 'succeeded' || delivery.status === 'failed');
      const next = ok || disable || finished ? null : options.policy.nextAttemptAt(number, outcome, now);
      const status = ok ? 'succeeded' : finished ? delivery.status : next ? 'retrying' : 'failed';
      // The attempt that disables the webhook ends its delivery, and says why it will not be retried.
      const error = disable ? `${outcome.error}; the webhook is now disabled` : outcome.error;
      await tx.all(
        `insert into "webhook_attempt" ("id", "delivery_id", "number", "trigger", "status_code", "error", "duration_ms", "response_excerpt", "created_at")
         values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [randomUUID(), row.id, number, trigger, outcome.statusCode, outcome.error, Math.round(outcome.durationMs), outcome.responseExcerpt, now.toISOString()],
      );
      await tx.all(
        `update "webhook_delivery" set "attempts" = ?, "status" = ?, "last_status_code" = ?, "last_error" = ?,
           "delivered_at" = case when ? then ?::timestamptz else "delivered_at" end, "next_attempt_at" = ?
         where "id" = ?`,
        [number, status, outcome.statusCode, error, ok, now.toISOString(), next?.toISOString() ?? null, row.id],
      );
      if (ok) {
        await tx.all(`update "webhook" set "failure_count" = 0, "failing_since" = null where "id" = ?`, [row.webhook_id]);
      } else {
        await tx.all(
          `update "webhook" set "failure_count" = "failure_count" + 1, "failing_since" = coalesce("failing_since", ?::timestamptz),
             "status" = case when ? then 'disabled' else "status" end,
             "disabled_at" = case when ? then ?::timestamptz else "disabled_at" end,
             "updated_at" = case when ? then ?::timestamptz else "updated_at" end
           where "id" = ?`,
          [now.toISOString(), disable, disable, now.toISOString(), disable, now.toISOString(), row.webhook_id],
        );
      }
    });
  }

  async function attempt(row: ClaimedRow, trigger: AttemptTrigger): Promise<void> {
    const payload = json<unknown>(row.payload);
    const outcome = await options.send({
      url: row.url,
      secret: options.secrets.decrypt(row.secret_ciphertext),
      eventId: row.event_id,
      timestamp: clock(),
      body: JSON.stringify(payload),
    });
    const now = clock();
    try {
      await record(row, trigger, outcome, now);
    } catch (error) {
      // Only text the database cannot encode is left out; anything else (a lost connection, a deadlock, a
      // serialization failure, a timeout) records nothing: the lease runs out and the attempt is made again.
      if (!isUnencodable(error)) throw error;
      // Something the receiver sent could not be stored. The attempt is still counted, retried on the schedule and
      // may disable the webhook: recorded with its verdict and status code, without the text. Not logged whole: the
      // driver's error quotes the statement with its values.
      logger.warn({ deliveryId: row.id, code: (error as { code?: unknown }).code }, 'webhook attempt recorded without its details: they could not be stored');
      const failed = !options.policy.succeeded(outcome);
      await record(row, trigger, { ...outcome, error: failed ? UNSTORABLE_DETAILS : null, responseExcerpt: null }, now);
    }
  }

  const slots = createDeliverySlots(options.slots ?? DELIVERY_SLOTS);
  const inFlight = new Set<Promise<void>>();
  const reportError = options.onError ?? (() => {});
  let closed = false;

  /** Claims into the free slots until they are full or nothing more is due for anyone who may take one. */
  async function fillSlots(): Promise<number> {
    let started = 0;
    while (!closed && slots.free() > 0) {
      const claimed = await claimDue(slots.free(), slots.full(), slots.turns());
      if (claimed.length === 0) break;
      for (const row of claimed) start(row);
      started += claimed.length;
    }
    return started;
  }

  // One fill at a time, and at most one waiting behind it (asked for again while it runs: it looks once more after).
  let fillTurn: Promise<unknown> = Promise.resolve();
  let nextFill: Promise<number> | undefined;
  function fill(): Promise<number> {
    if (!nextFill) {
      const queued = fillTurn.then(() => {
        nextFill = undefined;
        return fillSlots();
      });
      nextFill = queued;
      fillTurn = queued.catch(() => undefined);
    }
    return nextFill;
  }

  function start(row: ClaimedRow): void {
    slots.take(row);
    const running = attempt(row, 'scheduled')
      .catch(reportError)
      .finally(() => {
        slots.release(row);
        inFlight.delete(running);
        // The freed slot is refilled now, not at the next sweep.
        if (!closed) fill().catch(reportError);
      });
    inFlight.add(running);
  }

  return {
    sweep: () => (closed ? Promise.resolve(0) : fill()),
    async idle() {
      // Idle once the attempts have ended and the last fill queued (which may start more) has too.
      for (;;) {
        const turn = fillTurn;
        await Promise.allSettled([...inFlight, turn]);
        if (inFlight.size === 0 && turn === fillTurn) return;
      }
    },
    async attemptNow(deliveryId, trigger) {
      const row = await claimOne(deliveryId);
      if (row) await attempt(row, trigger);
    },
    async close(waitMs) {
      closed = true;
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)));
      await Promise.race([Promise.allSettled([...inFlight, fillTurn]), waited]);
      clearTimeout(timer);
    },
  };
}
