import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initOrm, type Orm } from '../../adapters/db/orm.ts';
import { sqlDbFromOrm, type SqlDb } from '../../adapters/db/sql.ts';
import { createUsageChargeWriter } from '../../adapters/usage/usage-charge-writer.ts';
import { createUsageCharges, insertUsageCharges, type UsageChargeRecord } from '../../adapters/usage/usage-charges.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/** The service's usage-ledger writer (COPY on PGlite, a bound parameter on PostgreSQL) against the ORM's insert. */
let database: TestDatabase;
let orm: Orm;
let db: SqlDb;

beforeAll(async () => {
  database = await createTestDatabase();
  orm = await initOrm({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
  db = sqlDbFromOrm(orm);
});
afterAll(async () => {
  await orm?.close(true);
  await database?.drop();
});

/** Every column but the id, in insertion order, with the timestamp as the database holds it. */
async function rowsOf(workspaceId: string): Promise<unknown[]> {
  const rows = await db.all<Record<string, unknown>>(
    `select "workspace_id", "request_id", "operation_id", "surface", "credits", to_char("charged_at" at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') as "at"
     from "usage_charge" where "workspace_id" = ? order by "id"`,
    [workspaceId],
  );
  return rows.map(({ workspace_id: _workspace, ...row }) => row);
}

/** Calls' rows, request ids and operation ids among them carrying every character COPY's text format escapes. */
function recordsOf(workspaceId: string): UsageChargeRecord[] {
  const awkward = ['tab\there', 'back\\slash\\', 'new\nline\r\n', "quote ' and \" and é ✓", '\\N', 'comma, semicolon; {brace}'];
  return [
    { workspaceId, requestId: 'req_0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0', operationId: 'getForumPost', surface: 'rest', credits: 4, chargedAt: new Date('2026-11-25T04:00:00.123Z') },
    ...awkward.map((text, i) => ({ workspaceId, requestId: text, operationId: `op ${text}`, surface: i % 2 ? 'mcp' : 'graphql', credits: 700 + i, chargedAt: new Date(Date.UTC(2026, 10, 30, 23, 59, 59, i)) })),
  ];
}

describe(`usage-ledger writer (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('stores exactly the rows the ORM insert stores', async () => {
    const [viaOrm, viaWriter] = [randomUUID(), randomUUID()];
    await insertUsageCharges(db, recordsOf(viaOrm));
    const write = await createUsageChargeWriter(orm);
    await write(recordsOf(viaWriter));
    const expected = await rowsOf(viaOrm);
    expect(expected).toHaveLength(7);
    expect(expected[2]).toMatchObject({ request_id: 'back\\slash\\', operation_id: 'op back\\slash\\' });
    expect(await rowsOf(viaWriter)).toEqual(expected);
  });

  it('writes the queued rows of calls, read back by the usage ledger', async () => {
    const workspaceId = randomUUID();
    const usage = createUsageCharges(db, { write: await createUsageChargeWriter(orm), flushMs: 3_600_000 });
    const records = recordsOf(workspaceId);
    usage.record(records.slice(0, 3));
    usage.record(records.slice(3));
    const range = { workspaceId, from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-12-01T00:00:00Z') };
    const page = await usage.page(range, 100, undefined);
    expect(page.items.map((item) => item.requestId).sort()).toEqual(records.map((record) => record.requestId).sort());
    expect((await usage.totals(range)).reduce((sum, total) => sum + total.credits, 0)).toBe(records.reduce((sum, record) => sum + record.credits, 0));
    await usage.close();
  });

  it('writes nothing of a batch that fails, inside a transaction the ORM holds open or not', async () => {
    const workspaceId = randomUUID();
    const write = await createUsageChargeWriter(orm);
    const [good] = recordsOf(workspaceId);
    await expect(write([good!, { ...good!, credits: 0 }])).rejects.toThrow();
    expect(await rowsOf(workspaceId)).toEqual([]);
    // A write that arrives while an ORM transaction is open waits for it (PGlite has one connection) and lands after it.
    let written: Promise<void> | undefined;
    await db.transaction(async (tx) => {
      written = write([good!]);
      await tx.all(`select pg_sleep(0.05)`);
      await tx.all(`insert into "usage_charge" ("workspace_id", "request_id", "operation_id", "surface", "credits", "charged_at") values (?, 'in-tx', 'op', 'rest', 1, now())`, [workspaceId]);
    });
    await written;
    expect((await rowsOf(workspaceId)).map((row) => (row as { request_id: string }).request_id).sort()).toEqual([good!.requestId, 'in-tx'].sort());
  });
});
