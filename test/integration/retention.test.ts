import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { RETENTION, retentionStatement, sweepRetention } from '../../adapters/db/retention.ts';
import { sqlDbFromOrm, type SqlDb } from '../../adapters/db/sql.ts';
import { createIdentityStore } from '../../adapters/identity/identity-store.ts';
import { useMigratedOrm } from '../support/migrated-orm.ts';

/** Housekeeping's retention (docs/jobs.md "Retention"), on rows written as if at the instants given. */
const NOW = new Date('2026-11-25T12:00:00Z');
const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY_MS).toISOString();
const OLD = RETENTION.historyDays + 10;

describe('retention', () => {
  const migrated = useMigratedOrm();
  let db: SqlDb;
  let workspaceId: string;

  beforeAll(async () => {
    db = sqlDbFromOrm(migrated.orm);
    ({ id: workspaceId } = await createIdentityStore(migrated.orm).createWorkspace({ name: 'retention' }));
  });

  const count = async (sql: string, params: unknown[]) => (await db.all<{ n: number }>(`select count(*)::int as "n" from ${sql}`, params))[0].n;

  async function webhook(): Promise<string> {
    const id = randomUUID();
    await db.all(
      `insert into "webhook" ("id", "workspace_id", "name", "url", "events", "secret_ciphertext", "created_at", "updated_at") values (?, ?, 'w', 'https://example.com/h', '[]', 'x', ?::timestamptz, ?::timestamptz)`,
      [id, workspaceId, daysAgo(60), daysAgo(60)],
    );
    return id;
  }

  /** `n` deliveries of `status`, the newest `days` old and each one second older than the one before. */
  async function deliveries(webhookId: string, n: number, days: number, status: string, from = 0): Promise<void> {
    await db.all(
      `insert into "webhook_delivery" ("id", "webhook_id", "event_id", "event_type", "payload", "status", "created_at")
       select gen_random_uuid(), ?, 'evt_' || g, 'monitor.results', '{}', ?, ?::timestamptz - g * interval '1 second' from generate_series(?::int, ?::int) g`,
      [webhookId, status, daysAgo(days), from + 1, from + n],
    );
  }

  it('deliveries: the newest of each webhook and the young ones stay; older finished ones go, their attempts with them', async () => {
    const [busy, recent] = [await webhook(), await webhook()];
    await deliveries(busy, RETENTION.newestKept + 10, OLD, 'succeeded');
    await deliveries(busy, 1, OLD + 10, 'retrying', 1_000);
    await deliveries(recent, RETENTION.newestKept + 50, 1, 'failed');
    const [oldest] = await db.all<{ id: string }>(`select "id" from "webhook_delivery" where "webhook_id" = ? and "status" = 'succeeded' order by "created_at" limit 1`, [busy]);
    await db.all(`insert into "webhook_attempt" ("id", "delivery_id", "number", "trigger", "duration_ms", "created_at") values (?, ?, 1, 'scheduled', 5, ?::timestamptz)`, [randomUUID(), oldest.id, daysAgo(OLD)]);

    expect((await sweepRetention(db, NOW)).deliveries).toBe(10);
    expect(await count(`"webhook_delivery" where "webhook_id" = ?`, [busy])).toBe(RETENTION.newestKept + 1);
    expect(await count(`"webhook_delivery" where "webhook_id" = ? and "status" = 'retrying'`, [busy])).toBe(1);
    expect(await count(`"webhook_delivery" where "webhook_id" = ?`, [recent])).toBe(RETENTION.newestKept + 50);
    expect(await count(`"webhook_attempt" where "delivery_id" = ?`, [oldest.id])).toBe(0);
    expect((await sweepRetention(db, NOW)).deliveries).toBe(0);
  });

  it('ranks only the webhooks with a finished delivery to delete, not every delivery of every webhook', async () => {
    // Every delivery ranked is counted: those of the tests before go first.
    await db.all(`delete from "webhook"`);
    const [old, young, sparse] = [await webhook(), await webhook(), await webhook()];
    await deliveries(old, RETENTION.newestKept + 5, OLD, 'succeeded');
    await deliveries(young, RETENTION.newestKept + 50, 1, 'succeeded');
    await deliveries(sparse, 3, OLD, 'succeeded');
    const { sql, params } = retentionStatement('deliveries', NOW);
    const [row] = await db.all<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${sql}`, params);
    const plan = typeof row['QUERY PLAN'] === 'string' ? JSON.parse(row['QUERY PLAN']) : row['QUERY PLAN'];
    const ranked: number[] = [];
    const walk = (node: { 'Node Type': string; 'Actual Rows': number; Plans?: unknown[] }) => {
      if (node['Node Type'] === 'WindowAgg') ranked.push(node['Actual Rows']);
      for (const child of node.Plans ?? []) walk(child as typeof node);
    };
    walk((plan as { Plan: Parameters<typeof walk>[0] }[])[0].Plan);
    const [{ n: oldRows }] = await db.all<{ n: number }>(`select count(*)::int as "n" from "webhook_delivery" where "webhook_id" = ?`, [old]);
    expect(oldRows).toBe(RETENTION.newestKept);
    expect(ranked).toEqual([RETENTION.newestKept + 5]);
  });

  it('monitor runs and results: the newest 100 of a monitor stay; older finished runs and results go', async () => {
    const monitorId = randomUUID();
    await db.all(
      `insert into "monitor" ("id", "workspace_id", "name", "target", "sources", "schedule", "created_at", "updated_at") values (?, ?, 'm', '{}', '[]', 'daily', ?::timestamptz, ?::timestamptz)`,
      [monitorId, workspaceId, daysAgo(60), daysAgo(60)],
    );
    await db.all(
      `insert into "monitor_run" ("id", "monitor_id", "status", "trigger", "created_at")
       select gen_random_uuid(), ?, 'succeeded', 'schedule', ?::timestamptz - g * interval '1 second' from generate_series(1, ?::int) g`,
      [monitorId, daysAgo(OLD), RETENTION.newestKept + 5],
    );
    await db.all(`insert into "monitor_run" ("id", "monitor_id", "status", "trigger", "created_at") values (?, ?, 'queued', 'manual', ?::timestamptz)`, [randomUUID(), monitorId, daysAgo(OLD + 5)]);
    await db.all(
      `insert into "monitor_result" ("id", "monitor_id", "run_id", "item_type", "source", "url", "first_seen_at")
       select gen_random_uuid(), ?, gen_random_uuid(), 'post', 'forum', 'https://example.com/' || g, ?::timestamptz - g * interval '1 second' from generate_series(1, ?::int) g`,
      [monitorId, daysAgo(OLD), RETENTION.newestKept + 3],
    );

    expect(await sweepRetention(db, NOW)).toMatchObject({ runs: 5, results: 3 });
    expect(await count(`"monitor_run" where "monitor_id" = ?`, [monitorId])).toBe(RETENTION.newestKept + 1);
    expect(await count(`"monitor_run" where "monitor_id" = ? and "status" = 'queued'`, [monitorId])).toBe(1);
    expect(await count(`"monitor_result" where "monitor_id" = ?`, [monitorId])).toBe(RETENTION.newestKept);
  });

  it(`usage ledger rows older than ${RETENTION.usageDays} days go; the credit ledger is untouched`, async () => {
    const charge = (days: number) =>
      db.all(`insert into "usage_charge" ("workspace_id", "request_id", "operation_id", "surface", "credits", "charged_at") values (?, ?, 'whoami', 'rest', 1, ?::timestamptz)`, [workspaceId, randomUUID(), daysAgo(days)]);
    for (const days of [RETENTION.usageDays + 30, RETENTION.usageDays + 1, RETENTION.usageDays + 1, RETENTION.usageDays - 1, 1]) await charge(days);
    const ledger = await count(`"billing_ledger_entry"`, []);
    expect((await sweepRetention(db, NOW)).usageCharges).toBe(3);
    expect(await count(`"usage_charge" where "workspace_id" = ?`, [workspaceId])).toBe(2);
    expect(await count(`"billing_ledger_entry"`, [])).toBe(ledger);
  });

  it('usage ledger batches count rows, not ids: ids with gaps still go a full batch at a time', async () => {
    // Every row swept is counted: those of the tests before go first.
    await db.all(`delete from "usage_charge"`);
    const rows = RETENTION.batch + RETENTION.batch / 2;
    await db.all(
      `insert into "usage_charge" ("id", "workspace_id", "request_id", "operation_id", "surface", "credits", "charged_at")
       select 1000000 + g * 2, ?, gen_random_uuid()::text, 'whoami', 'rest', 1, ?::timestamptz from generate_series(1, ?::int) g`,
      [workspaceId, daysAgo(RETENTION.usageDays + 1), rows],
    );
    expect((await sweepRetention(db, NOW)).usageCharges).toBe(rows);
  });

  it(`an OAuth client nobody connected goes ${RETENTION.unusedClientDays} days after it registered, its registration access token with it; a connected one stays`, async () => {
    const issued = (days: number) => Math.floor((NOW.getTime() - days * DAY_MS) / 1000);
    const clients = { unused: issued(RETENTION.unusedClientDays + 1), connected: issued(RETENTION.unusedClientDays + 1), young: issued(RETENTION.unusedClientDays - 1) };
    for (const [id, at] of Object.entries(clients)) {
      await db.all(`insert into "oauth_model" ("kind", "id", "payload") values ('Client', ?, ?::jsonb)`, [id, JSON.stringify({ client_id: id, client_id_issued_at: at })]);
    }
    await db.all(`insert into "oauth_model" ("kind", "id", "payload") values ('Client', 'https://client.example/metadata', '{}'::jsonb)`);
    await db.all(
      `insert into "api_key" ("id", "workspace_id", "kind", "label", "name", "scopes", "prefix", "created_at", "oauth_client_id", "oauth_grant_id")
       values (?, ?, 'mcp_connection', 'live', 'c', '{}', 'p', ?::timestamptz, 'connected', ?)`,
      [randomUUID(), workspaceId, daysAgo(20), randomUUID()],
    );
    for (const id of Object.keys(clients)) {
      await db.all(`insert into "oauth_model" ("kind", "id", "payload") values ('RegistrationAccessToken', ?, ?::jsonb)`, [`rat-${id}`, JSON.stringify({ kind: 'RegistrationAccessToken', clientId: id })]);
    }
    expect((await sweepRetention(db, NOW)).oauthClients).toBe(1);
    const left = await db.all<{ id: string }>(`select "id" from "oauth_model" where "kind" = 'Client' order by "id"`);
    expect(left.map((row) => row.id)).toEqual(['connected', 'https://client.example/metadata', 'young']);
    const tokens = await db.all<{ id: string }>(`select "id" from "oauth_model" where "kind" = 'RegistrationAccessToken' order by "id"`);
    expect(tokens.map((row) => row.id)).toEqual(['rat-connected', 'rat-young']);
  });
});
