import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sqlDbFromOrm, type SqlDb } from '../../../adapters/db/sql.ts';
import { createIdentityStore } from '../../../adapters/identity/identity-store.ts';
import { createWebhookService } from '../../../adapters/webhooks/webhook-service.ts';

import { useMigratedOrm } from '../../support/migrated-orm.ts';

/** A delivery read while a retry commits between its statements still describes one moment. */
describe(`webhook delivery read (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  const migrated = useMigratedOrm();
  let sql: SqlDb;
  let workspaceId: string;
  const at = '2026-06-01T00:00:00.000Z';

  beforeAll(async () => {
    sql = sqlDbFromOrm(migrated.orm);
    workspaceId = (await createIdentityStore(migrated.orm).createWorkspace({ name: 'Hooks' })).id;
  });

  it('shows as many attempts in the log as the delivery counts when a retry lands between its reads', async () => {
    const webhookId = randomUUID();
    const deliveryId = randomUUID();
    await sql.all(
      `insert into "webhook" ("id", "workspace_id", "name", "url", "events", "secret_ciphertext", "created_at", "updated_at")
       values (?, ?, 'flaky', 'https://example.com/hook', '["webhook.test"]', 'x', ?, ?)`,
      [webhookId, workspaceId, at, at],
    );
    await sql.all(
      `insert into "webhook_delivery" ("id", "webhook_id", "event_id", "event_type", "payload", "status", "attempts", "last_status_code", "created_at")
       values (?, ?, 'msg_1', 'webhook.test', '{}', 'retrying', 1, 500, ?)`,
      [deliveryId, webhookId, at],
    );
    await sql.all(
      `insert into "webhook_attempt" ("id", "delivery_id", "number", "trigger", "status_code", "duration_ms", "created_at") values (?, ?, 1, 'test', 500, 3, ?)`,
      [randomUUID(), deliveryId, at],
    );

    // The retry commits right after the first statement that reads the delivery or its log, as a worker could.
    let landed = false;
    const retry = () =>
      sql.transaction(async (tx) => {
        await tx.all(
          `insert into "webhook_attempt" ("id", "delivery_id", "number", "trigger", "status_code", "duration_ms", "created_at") values (?, ?, 2, 'scheduled', 204, 3, ?)`,
          [randomUUID(), deliveryId, at],
        );
        await tx.all(`update "webhook_delivery" set "attempts" = 2, "status" = 'succeeded', "last_status_code" = 204 where "id" = ?`, [deliveryId]);
      });
    const racing: SqlDb = {
      transaction: (work) => sql.transaction(work),
      async all<T extends object>(text: string, params?: readonly unknown[]) {
        const rows = await sql.all<T>(text, params);
        if (!landed && /^select \* from "webhook_(attempt|delivery)"/.test(text)) {
          landed = true;
          await retry();
        }
        return rows;
      },
    };
    const service = createWebhookService({
      db: racing,
      secrets: { generate: () => 'whsec_x', encrypt: (s) => s, decrypt: (s) => s },
      checkDestination: async () => ({ ok: true }),
      limits: async () => null,
      deliverNow: async () => {},
      newEventId: randomUUID,
      clock: () => new Date(at),
      maxWaitingTests: 10,
      redeliveryWindow: { maxRedeliveries: 5, windowSeconds: 3_600 },
    });

    const read = await service.delivery(workspaceId, deliveryId);
    expect(landed).toBe(true);
    expect(read.attemptLog).toHaveLength(read.attempts);
    expect(read.attemptLog.at(-1)?.statusCode).toBe(read.lastStatusCode);
  });
});
