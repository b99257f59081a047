/**
 * Billed-call bookkeeping throughput: admit + settle per call, on one hot workspace and spread over 100, against
 * the single-row design (reserve and settle both UPDATE the account row) measured in the same run.
 *
 *   node bench/billing-credits.ts [postgres://…]   (default: $TEST_DATABASE_URL; a scratch database is created and dropped)
 */
import { randomUUID } from 'node:crypto';
import { billingDbFromOrm, type BillingDb } from '../adapters/billing/billing-sql.ts';
import { createCreditsService, type CreditsService } from '../adapters/billing/credits-service.ts';
import { initOrm } from '../adapters/db/orm.ts';

const serverUrl = process.argv[2] ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const CALLS = Number(process.env.BENCH_CALLS ?? 4_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);

async function withScratchDatabase<T>(work: (url: string) => Promise<T>): Promise<T> {
  const name = `bench_billing_${randomUUID().slice(0, 8)}`;
  const admin = await initOrm({ databaseUrl: serverUrl, migrate: false });
  await admin.em.getConnection().execute(`create database ${name}`);
  try {
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    return await work(url.toString());
  } finally {
    await admin.em.getConnection().execute(`drop database ${name} with (force)`);
    await admin.close(true);
  }
}

async function createWorkspaces(db: BillingDb, credits: CreditsService, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  for (const id of ids) {
    await db.all(`insert into workspace (id, name, receives_free_grant, created_at) values (?, 'bench', false, now())`, [id]);
    await credits.recordPurchase(id, { usdCents: 100_000, credits: 100_000_000 });
  }
  return ids;
}

/** Runs `call` CALLS times with CONCURRENCY in flight; returns calls per second. */
async function measure(call: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < CALLS) await call(next++);
    }),
  );
  return CALLS / ((performance.now() - started) / 1000);
}

/** The design we did not choose: a `reserved` column on the account row, updated at admission and at settlement. */
async function singleRowDesign(db: BillingDb, workspaceIds: string[]): Promise<(i: number) => Promise<void>> {
  await db.all(`create table bench_single_row (workspace_id uuid primary key, balance bigint not null, reserved bigint not null)`);
  for (const id of workspaceIds) await db.all(`insert into bench_single_row values (?, 100000000, 0)`, [id]);
  return async (i) => {
    const id = workspaceIds[i % workspaceIds.length];
    const [held] = await db.all<{ hold: unknown }>(
      `update bench_single_row set reserved = reserved + least(301, balance - reserved)
       where workspace_id = ? and balance - reserved >= 1 returning least(301, balance - reserved) as hold`, [id]);
    if (!held) throw new Error('refused');
    await db.all(
      `with s as (update bench_single_row set reserved = reserved - 301, balance = balance - 31 where workspace_id = ? returning workspace_id)
       insert into billing_ledger_entry (workspace_id, kind, credits, free_credits, bought_credits, created_at)
       select workspace_id, 'charge', -31, 0, -31, now() from s`, [id]);
  };
}

function ledgerDesign(credits: CreditsService, workspaceIds: string[]): (i: number) => Promise<void> {
  return async (i) => {
    const reservation = await credits.admit(workspaceIds[i % workspaceIds.length], { minimumCredits: 1, reserveCredits: 301 });
    await credits.settle(reservation, 31);
  };
}

await withScratchDatabase(async (url) => {
  const orm = await initOrm({ databaseUrl: url });
  const db = billingDbFromOrm(orm);
  const credits = createCreditsService({ db });
  const spread = await createWorkspaces(db, credits, 100);
  const hot = [spread[0]];
  const rows: Record<string, string> = {};
  const single = await singleRowDesign(db, spread);
  // Warm up connections and plans before measuring.
  await measure(ledgerDesign(credits, spread));
  rows['reservation rows, 1 hot workspace'] = (await measure(ledgerDesign(credits, hot))).toFixed(0);
  rows['reservation rows, 100 workspaces'] = (await measure(ledgerDesign(credits, spread))).toFixed(0);
  rows['single row x2 writes, 1 hot workspace'] = (await measure((i) => single(i * 100))).toFixed(0);
  rows['single row x2 writes, 100 workspaces'] = (await measure(single)).toFixed(0);
  console.log(`billed-call bookkeeping (admit + settle), ${CALLS} calls, ${CONCURRENCY} in flight, calls/s:`);
  console.table(rows);
  await orm.close(true);
});
