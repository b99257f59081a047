import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sqlDbFromOrm, type SqlDb } from '../../../adapters/db/sql.ts';
import { createIdentityStore } from '../../../adapters/identity/identity-store.ts';
import { createDeliveryPolicy } from '../../../adapters/webhooks/delivery-policy.ts';
import { UNSTORABLE_DETAILS, createDeliveryWorker, type AttemptOutcome } from '../../../adapters/webhooks/delivery-worker.ts';
import { useMigratedOrm } from '../../support/migrated-orm.ts';

/** An attempt whose answer the database cannot store is still recorded, counted and retried (not re-sent uncounted). */
describe(`webhook attempt recording (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  const migrated = useMigratedOrm();
  let sql: SqlDb;
  let workspaceId: string;
  const now = new Date('2026-06-01T00:00:00.000Z');

  beforeAll(async () => {
    sql = sqlDbFromOrm(migrated.orm);
    workspaceId = (await createIdentityStore(migrated.orm).createWorkspace({ name: 'Hooks' })).id;
  });

  async function dueDelivery(): Promise<{ webhookId: string; deliveryId: string }> {
    const webhookId = randomUUID();
    const deliveryId = randomUUID();
    await sql.all(
      `insert into "webhook" ("id", "workspace_id", "name", "url", "events", "secret_ciphertext", "created_at", "updated_at")
       values (?, ?, 'odd answers', 'https://example.com/hook', '["webhook.test"]', 'whsec_x', ?, ?)`,
      [webhookId, workspaceId, now.toISOString(), now.toISOString()],
    );
    await sql.all(
      `insert into "webhook_delivery" ("id", "webhook_id", "event_id", "event_type", "payload", "status", "next_attempt_at", "created_at")
       values (?, ?, ?, 'webhook.test', '{}', 'pending', ?, ?)`,
      [deliveryId, webhookId, `evt_${randomUUID()}`, now.toISOString(), now.toISOString()],
    );
    return { webhookId, deliveryId };
  }

  function worker(outcome: AttemptOutcome) {
    return createDeliveryWorker({
      db: sql,
      secrets: { generate: () => 'whsec_x', encrypt: (s) => s, decrypt: (s) => s },
      send: async () => outcome,
      policy: createDeliveryPolicy(() => 0.5),
      clock: () => now,
    });
  }

  it('records an attempt whose answer the database refuses without it: counted, retried on the schedule', async () => {
    const { webhookId, deliveryId } = await dueDelivery();
    // As the sender gave it before its excerpt was made storable: a NUL, which PostgreSQL text refuses.
    await worker({ statusCode: 500, error: 'HTTP 500', durationMs: 3, responseExcerpt: 'bad\u0000body', retryAfterMs: null }).attemptNow(deliveryId, 'scheduled');
    const [delivery] = await sql.all<{ status: string; attempts: unknown; last_error: string; next_attempt_at: Date | string }>(`select * from "webhook_delivery" where "id" = ?`, [deliveryId]);
    expect(delivery).toMatchObject({ status: 'retrying', last_error: UNSTORABLE_DETAILS });
    expect(Number(delivery.attempts)).toBe(1);
    // The first retry's 5 s (jitter fixed at none), not the 60 s lease an unrecorded attempt left.
    expect(new Date(delivery.next_attempt_at).getTime() - now.getTime()).toBe(5_000);
    const attempts = await sql.all<{ number: unknown; status_code: unknown; response_excerpt: string | null }>(`select * from "webhook_attempt" where "delivery_id" = ?`, [deliveryId]);
    expect(attempts.map((a) => [Number(a.number), Number(a.status_code), a.response_excerpt])).toEqual([[1, 500, null]]);
    const [webhook] = await sql.all<{ failure_count: unknown }>(`select "failure_count" from "webhook" where "id" = ?`, [webhookId]);
    expect(Number(webhook.failure_count)).toBe(1);
  });

  it('records nothing for any other database error (a deadlock): the lease runs out and the attempt is made again', async () => {
    const { webhookId, deliveryId } = await dueDelivery();
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01', severity: 'ERROR' });
    // The first transaction (the attempt's record) is the deadlock's victim; a second would succeed.
    let transactions = 0;
    const deadlocking: SqlDb = {
      all: <T extends object>(text: string, params?: readonly unknown[]) => sql.all<T>(text, params),
      transaction: async (work) => (transactions++ === 0 ? Promise.reject(deadlock) : sql.transaction(work)),
    };
    const deadlocked = createDeliveryWorker({
      db: deadlocking,
      secrets: { generate: () => 'whsec_x', encrypt: (s) => s, decrypt: (s) => s },
      send: async () => ({ statusCode: 500, error: 'HTTP 500', durationMs: 3, responseExcerpt: 'plain', retryAfterMs: null }),
      policy: createDeliveryPolicy(() => 0.5),
      clock: () => now,
    });
    await expect(deadlocked.attemptNow(deliveryId, 'scheduled')).rejects.toBe(deadlock);
    const [delivery] = await sql.all<{ attempts: unknown; last_error: string | null }>(`select * from "webhook_delivery" where "id" = ?`, [deliveryId]);
    expect(delivery.last_error).toBeNull();
    expect(Number(delivery.attempts)).toBe(0);
    const [webhook] = await sql.all<{ failure_count: unknown }>(`select "failure_count" from "webhook" where "id" = ?`, [webhookId]);
    expect(Number(webhook.failure_count)).toBe(0);
  });

  it('keeps a success a success when only its answer could not be stored', async () => {
    const { deliveryId } = await dueDelivery();
    await worker({ statusCode: 200, error: null, durationMs: 3, responseExcerpt: 'ok\u0000', retryAfterMs: null }).attemptNow(deliveryId, 'scheduled');
    const [delivery] = await sql.all<{ status: string; attempts: unknown; last_error: string | null }>(`select * from "webhook_delivery" where "id" = ?`, [deliveryId]);
    expect(delivery).toMatchObject({ status: 'succeeded', last_error: null });
    expect(Number(delivery.attempts)).toBe(1);
  });
});
