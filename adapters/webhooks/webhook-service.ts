import { randomUUID } from 'node:crypto';
import type { Limits } from '../shapes/account-shapes.ts';
import type { CreatedWebhook, Webhook, WebhookAttempt, WebhookDelivery, WebhookDeliveryDetail } from '../shapes/webhook-shapes.ts';
import { toInt, type SqlDb, type SqlRunner } from '../db/sql.ts';
import { ResourceError } from '../db/resource-error.ts';
import { iso, isoOrNull, json } from '../monitors/monitor-rows.ts';

/** Signing secrets: made here, stored encrypted, decrypted only to sign. */
export interface WebhookSecrets {
  generate(): string;
  encrypt(secret: string): string;
  decrypt(ciphertext: string): string;
}

/** Whether a URL is a permitted destination; the reason says why not (a 400 naming `url`). */
export type DestinationCheck = (url: string) => Promise<{ ok: true } | { ok: false; reason: string }>;

/** Raises an event for one webhook: a delivery row, written in the caller's transaction (the durable outbox). */
export interface NewEvent {
  webhookId: string;
  eventId: string;
  type: string;
  payload: unknown;
}

export interface WebhookRow {
  id: string;
  workspace_id: string;
  name: string;
  url: string;
  status: 'active' | 'disabled';
  events: unknown;
  secret_ciphertext: string;
  failure_count: unknown;
  failing_since: unknown;
  disabled_at: unknown;
  created_at: unknown;
  updated_at: unknown;
}

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  payload: unknown;
  status: WebhookDelivery['status'];
  attempts: unknown;
  last_status_code: unknown;
  last_error: string | null;
  delivered_at: unknown;
  next_attempt_at: unknown;
  created_at: unknown;
}

interface AttemptRow {
  number: unknown;
  trigger: WebhookAttempt['trigger'];
  status_code: unknown;
  error: string | null;
  duration_ms: unknown;
  response_excerpt: string | null;
  created_at: unknown;
}

function toAttempt(row: AttemptRow): WebhookAttempt {
  return {
    number: toInt(row.number),
    trigger: row.trigger,
    statusCode: row.status_code === null || row.status_code === undefined ? null : toInt(row.status_code),
    error: row.error,
    durationMs: toInt(row.duration_ms),
    responseExcerpt: row.response_excerpt,
    createdAt: iso(row.created_at),
  };
}

export function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    status: row.status,
    events: json<string[]>(row.events),
    failureCount: toInt(row.failure_count),
    disabledAt: isoOrNull(row.disabled_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: toInt(row.attempts),
    lastStatusCode: row.last_status_code === null || row.last_status_code === undefined ? null : toInt(row.last_status_code),
    lastError: row.last_error,
    deliveredAt: isoOrNull(row.delivered_at),
    createdAt: iso(row.created_at),
  };
}

/**
 * Writes events as pending deliveries in the given transaction. The payload goes in as JSON text (a text column):
 * platform text in it may hold U+0000, which jsonb refuses.
 */
export async function insertEvents(tx: SqlRunner, events: readonly NewEvent[], at: Date, firstAttemptAt: Date = at): Promise<void> {
  for (const event of events) {
    await tx.all(
      `insert into "webhook_delivery" ("id", "webhook_id", "event_id", "event_type", "payload", "status", "next_attempt_at", "created_at")
       values (?, ?, ?, ?, ?, 'pending', ?, ?) on conflict ("webhook_id", "event_id") do nothing`,
      [randomUUID(), event.webhookId, event.eventId, event.type, JSON.stringify(event.payload), firstAttemptAt.toISOString(), at.toISOString()],
    );
  }
}

export interface WebhookPatch {
  name?: string;
  url?: string;
  events?: string[];
  status?: 'active' | 'disabled';
}

export interface WebhookService {
  create(workspaceId: string, input: { name: string; url: string; events: string[] }): Promise<CreatedWebhook>;
  get(workspaceId: string, id: string): Promise<Webhook>;
  list(workspaceId: string, limit: number): Promise<Webhook[]>;
  update(workspaceId: string, id: string, patch: WebhookPatch): Promise<Webhook>;
  remove(workspaceId: string, id: string): Promise<{ id: string; deleted: true }>;
  deliveries(workspaceId: string, options: { limit: number; webhookId?: string }): Promise<WebhookDelivery[]>;
  /** One delivery with every attempt made. */
  delivery(workspaceId: string, deliveryId: string): Promise<WebhookDeliveryDetail>;
  /** Sends a signed `webhook.test` event now; the delivery it made. */
  test(workspaceId: string, id: string): Promise<WebhookDelivery>;
  /** Attempts a past delivery again now, with the same event id, signed with the current secret. */
  redeliver(workspaceId: string, deliveryId: string): Promise<WebhookDelivery>;
  /** The platform whose content a delivery's payload carries (a result's `source`); [] for none, or no such delivery. */
  deliveryPlatforms(workspaceId: string, deliveryId: string): Promise<string[]>;
}

export interface WebhookServiceOptions {
  db: SqlDb;
  secrets: WebhookSecrets;
  checkDestination: DestinationCheck;
  limits(workspaceId: string): Promise<Limits | null>;
  /** Attempts a delivery now (the jobs layer), recording the attempt under `trigger`; resolves once it is recorded. */
  deliverNow(deliveryId: string, trigger: 'manual' | 'redeliver' | 'test'): Promise<void>;
  newEventId(): string;
  clock: () => Date;
  /** Test deliveries a webhook may have waiting (pending or retrying) before another test is refused. */
  maxWaitingTests: number;
  /** Redeliveries of one delivery per window (opened by the first after the last one closed) before another is refused. */
  redeliveryWindow: { maxRedeliveries: number; windowSeconds: number };
}

/** Longer than an attempt's timeout. */
const TEST_LEASE_MS = 60_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function notFound(resource: 'webhook' | 'delivery', id: string): ResourceError {
  return new ResourceError('not_found', `No ${resource} ${id} in this account.`, { resource, id });
}

/** A disabled webhook receives nothing, sent by hand (test, redeliver) or by the schedule, until it is active again. */
function disabled(status: WebhookRow['status']): ResourceError {
  return new ResourceError('state', 'The webhook is disabled: set its status to active to send it anything.', { status });
}

/** A webhook with as many test deliveries waiting as it may have: one ends when delivered or out of retries. */
function testsWaiting(limit: number, retryAfterSeconds: number): ResourceError {
  return new ResourceError(
    'busy',
    `This webhook has ${limit} test deliveries waiting to be delivered (pending or retrying), as many as it may: once its receiver answers 2xx, redeliver one (POST /v1/webhook-deliveries/{id}/redeliver) or wait for their retries, then test again.`,
    { reason: 'test_deliveries_waiting', maxWaitingTests: limit },
    retryAfterSeconds,
  );
}

/** A delivery redelivered as often as its window allows: the window closes by itself. */
function tooManyRedeliveries(window: WebhookServiceOptions['redeliveryWindow'], retryAfterSeconds: number): ResourceError {
  return new ResourceError(
    'busy',
    `This delivery was redelivered ${window.maxRedeliveries} times in the ${window.windowSeconds / 60} minutes since the first of them, as often as it may: redeliver it again in ${retryAfterSeconds} s (Retry-After), or send a test (POST /v1/webhooks/{id}/test) to try the receiver meanwhile.`,
    { reason: 'too_many_redeliveries', maxRedeliveries: window.maxRedeliveries, windowSeconds: window.windowSeconds },
    retryAfterSeconds,
  );
}

function forbidden(reason: string): ResourceError {
  return new ResourceError('destination', `The URL is not a permitted destination: ${reason}.`, { field: 'url', reason });
}

export function createWebhookService(options: WebhookServiceOptions): WebhookService {
  const { db, clock } = options;

  async function requireWebhook(runner: SqlRunner, workspaceId: string, id: string): Promise<WebhookRow> {
    if (!UUID.test(id)) throw notFound('webhook', id);
    const [row] = await runner.all<WebhookRow>(`select * from "webhook" where "id" = ? and "workspace_id" = ?`, [id, workspaceId]);
    if (!row) throw notFound('webhook', id);
    return row;
  }

  async function permitted(url: string): Promise<void> {
    const verdict = await options.checkDestination(url);
    if (!verdict.ok) throw forbidden(verdict.reason);
  }

  async function deliveryOf(id: string): Promise<WebhookDelivery> {
    const [row] = await db.all<DeliveryRow>(`select * from "webhook_delivery" where "id" = ?`, [id]);
    return toDelivery(row);
  }

  /** The delivery's webhook status, when the delivery is this account's. */
  async function requireDelivery(workspaceId: string, deliveryId: string): Promise<WebhookRow['status']> {
    const [row] = UUID.test(deliveryId)
      ? await db.all<{ status: WebhookRow['status'] }>(
          `select w."status" from "webhook_delivery" d join "webhook" w on w."id" = d."webhook_id" where d."id" = ? and w."workspace_id" = ?`,
          [deliveryId, workspaceId],
        )
      : [];
    if (!row) throw notFound('delivery', deliveryId);
    return row.status;
  }

  return {
    async create(workspaceId, input) {
      await permitted(input.url);
      const limits = await options.limits(workspaceId);
      if (!limits) throw notFound('webhook', workspaceId);
      const secret = options.secrets.generate();
      const now = clock().toISOString();
      const row = await db.transaction(async (tx) => {
        // One creation at a time per workspace, so two concurrent creations cannot both pass the ceiling.
        await tx.all(`select pg_advisory_xact_lock(hashtext('webhook-create:' || ?))`, [workspaceId]);
        const [{ count }] = await tx.all<{ count: unknown }>(`select count(*) as "count" from "webhook" where "workspace_id" = ?`, [workspaceId]);
        if (toInt(count) >= limits.maxWebhooks) {
          throw new ResourceError('limit', `The ${limits.tier} tier allows ${limits.maxWebhooks} webhook${limits.maxWebhooks === 1 ? '' : 's'}; delete one or buy credits to raise the tier.`, {
            limit: 'maxWebhooks',
            maxWebhooks: limits.maxWebhooks,
            tier: limits.tier,
          });
        }
        const [created] = await tx.all<WebhookRow>(
          `insert into "webhook" ("id", "workspace_id", "name", "url", "status", "events", "secret_ciphertext", "created_at", "updated_at")
           values (?, ?, ?, ?, 'active', ?::jsonb, ?, ?, ?) returning *`,
          [randomUUID(), workspaceId, input.name, input.url, JSON.stringify(input.events), options.secrets.encrypt(secret), now, now],
        );
        return created;
      });
      return { ...toWebhook(row), secret };
    },

    async get(workspaceId, id) {
      return toWebhook(await requireWebhook(db, workspaceId, id));
    },

    async list(workspaceId, limit) {
      const rows = await db.all<WebhookRow>(`select * from "webhook" where "workspace_id" = ? order by "created_at" desc, "id" limit ?`, [workspaceId, limit]);
      return rows.map(toWebhook);
    },

    async update(workspaceId, id, patch) {
      await requireWebhook(db, workspaceId, id);
      if (patch.url !== undefined) await permitted(patch.url);
      const now = clock().toISOString();
      // One statement that keeps what the patch does not name as it is in the row (not as it was read): a concurrent
      // PATCH, or the delivery worker disabling the webhook, is never written back over.
      const [row] = await db.all<WebhookRow>(
        `update "webhook" set "name" = coalesce(?, "name"), "url" = coalesce(?, "url"), "events" = coalesce(?::jsonb, "events"),
           "status" = coalesce(?, "status"),
           "failure_count" = case when ?::text = 'active' and "status" <> 'active' then 0 else "failure_count" end,
           "failing_since" = case when ?::text = 'active' and "status" <> 'active' then null else "failing_since" end,
           "disabled_at" = case when ?::text = 'active' and "status" <> 'active' then null
                                when ?::text = 'disabled' and "status" <> 'disabled' then ?::timestamptz else "disabled_at" end,
           "updated_at" = ?
         where "id" = ? and "workspace_id" = ? returning *`,
        [
          patch.name ?? null,
          patch.url ?? null,
          patch.events ? JSON.stringify(patch.events) : null,
          patch.status ?? null,
          patch.status ?? null,
          patch.status ?? null,
          patch.status ?? null,
          patch.status ?? null,
          now,
          now,
          id,
          workspaceId,
        ],
      );
      if (!row) throw notFound('webhook', id);
      return toWebhook(row);
    },

    async remove(workspaceId, id) {
      await requireWebhook(db, workspaceId, id);
      // Monitors keep running without it: their webhookId becomes null (the foreign key's ON DELETE SET NULL).
      await db.all(`delete from "webhook" where "id" = ? and "workspace_id" = ?`, [id, workspaceId]);
      return { id, deleted: true };
    },

    async deliveries(workspaceId, { limit, webhookId }) {
      // Another account's webhook (or none) simply has no deliveries here: the spec gives this list no 404.
      const rows = await db.all<DeliveryRow>(
        `select d.* from "webhook_delivery" d join "webhook" w on w."id" = d."webhook_id"
         where w."workspace_id" = ? and (?::uuid is null or d."webhook_id" = ?::uuid)
         order by d."created_at" desc, d."id" desc limit ?`,
        [workspaceId, webhookId ?? null, webhookId ?? null, limit],
      );
      return rows.map(toDelivery);
    },

    async test(workspaceId, id) {
      const webhook = await requireWebhook(db, workspaceId, id);
      if (webhook.status !== 'active') throw disabled(webhook.status);
      const at = clock();
      const eventId = options.newEventId();
      const payload = { type: 'webhook.test', timestamp: at.toISOString(), data: { webhook: toWebhook(webhook) } };
      await db.transaction(async (tx) => {
        // One test of a webhook at a time counts and inserts, so concurrent tests cannot all pass the bound.
        await tx.all(`select pg_advisory_xact_lock(hashtext('webhook-test:' || ?))`, [webhook.id]);
        const [waiting] = await tx.all<{ count: unknown; soonest: unknown }>(
          `select count(*) as "count", min("next_attempt_at") as "soonest" from "webhook_delivery"
           where "webhook_id" = ? and "event_type" = 'webhook.test' and "status" in ('pending', 'retrying')`,
          [webhook.id],
        );
        if (toInt(waiting.count) >= options.maxWaitingTests) {
          // When the soonest of them is next attempted (it may then be delivered), at least a second from now.
          const soonestMs = waiting.soonest ? Date.parse(iso(waiting.soonest)) - at.getTime() : 0;
          throw testsWaiting(options.maxWaitingTests, Math.max(1, Math.ceil(soonestMs / 1000)));
        }
        // Due only after a lease: the attempt made here is the first, and the schedule takes over if this process dies.
        await insertEvents(tx, [{ webhookId: webhook.id, eventId, type: 'webhook.test', payload }], at, new Date(at.getTime() + TEST_LEASE_MS));
      });
      const [row] = await db.all<{ id: string }>(`select "id" from "webhook_delivery" where "webhook_id" = ? and "event_id" = ?`, [webhook.id, eventId]);
      await options.deliverNow(row.id, 'test');
      return deliveryOf(row.id);
    },

    async delivery(workspaceId, deliveryId) {
      await requireDelivery(workspaceId, deliveryId);
      // The row first, then its attempts up to its count: an attempt commits with the row's update, so the log and the
      // status always describe the same moment even while a retry lands between the two reads.
      const [row] = await db.all<DeliveryRow>(`select * from "webhook_delivery" where "id" = ?`, [deliveryId]);
      const attempts = await db.all<AttemptRow>(
        `select * from "webhook_attempt" where "delivery_id" = ? and "number" <= ? order by "number"`,
        [deliveryId, toInt(row.attempts)],
      );
      const scheduled = row.status === 'pending' || row.status === 'retrying';
      return { ...toDelivery(row), nextAttemptAt: scheduled ? isoOrNull(row.next_attempt_at) : null, attemptLog: attempts.map(toAttempt) };
    },

    async deliveryPlatforms(workspaceId, deliveryId) {
      if (!UUID.test(deliveryId)) return [];
      // Parsed here, not in SQL: a payload is text because jsonb cannot hold every string a platform sends (U+0000).
      const [row] = await db.all<{ payload: string }>(
        `select d."payload" from "webhook_delivery" d join "webhook" w on w."id" = d."webhook_id" where d."id" = ? and w."workspace_id" = ?`,
        [deliveryId, workspaceId],
      );
      const source = row ? (JSON.parse(row.payload) as { data?: { result?: { source?: unknown } } }).data?.result?.source : undefined;
      return typeof source === 'string' ? [source] : [];
    },

    async redeliver(workspaceId, deliveryId) {
      const status = await requireDelivery(workspaceId, deliveryId);
      if (status !== 'active') throw disabled(status);
      const { maxRedeliveries, windowSeconds } = options.redeliveryWindow;
      const now = clock();
      const closedBefore = new Date(now.getTime() - windowSeconds * 1000).toISOString();
      // Checked and counted in one statement (the row's lock), so redeliveries sent at once cannot all pass the bound.
      const [counted] = await db.all<{ id: string }>(
        `update "webhook_delivery" set
           "redelivery_window_start" = case when "redelivery_window_start" is null or "redelivery_window_start" <= ?::timestamptz then ?::timestamptz else "redelivery_window_start" end,
           "redeliveries_in_window" = case when "redelivery_window_start" is null or "redelivery_window_start" <= ?::timestamptz then 1 else "redeliveries_in_window" + 1 end
         where "id" = ? and ("redelivery_window_start" is null or "redelivery_window_start" <= ?::timestamptz or "redeliveries_in_window" < ?)
         returning "id"`,
        [closedBefore, now.toISOString(), closedBefore, deliveryId, closedBefore, maxRedeliveries],
      );
      if (!counted) {
        const [row] = await db.all<{ redelivery_window_start: unknown }>(`select "redelivery_window_start" from "webhook_delivery" where "id" = ?`, [deliveryId]);
        if (!row) throw notFound('delivery', deliveryId);
        // Until the window closes, at least a second from now.
        const closesMs = row.redelivery_window_start ? Date.parse(iso(row.redelivery_window_start)) + windowSeconds * 1000 - now.getTime() : 0;
        throw tooManyRedeliveries(options.redeliveryWindow, Math.max(1, Math.ceil(closesMs / 1000)));
      }
      await options.deliverNow(deliveryId, 'redeliver');
      return deliveryOf(deliveryId);
    },
  };
}
