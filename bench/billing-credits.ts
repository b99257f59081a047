/**
 * Billed-call bookkeeping throughput: admit + settle per call, on one hot workspace and spread over 100, against
 * the single-row design (reserve and settle both UPDATE the account row) measured in the same run. The single-row
 * baseline is deliberately minimal (no reservation rows, so no expiry; no free/bought split): a lower bound of
 * its cost.
 *
 *   node bench/billing-credits.ts [postgres://…]   (default: $TEST_DATABASE_URL; a scratch database is created and dropped)
 */
import { randomUUID } from 'node:crypto';
import { sqlDbFromOrm, type SqlDb } from '../adapters/db/sql.ts';
import { createCreditsService, type CreditsService } from '../adapters/billing/credits-service.ts';
import { initOrm } from '../adapters/db/orm.ts';

const serverUrl = process.argv[2] ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const CALLS = Number(process.env.BENCH_CALLS ?? 3_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

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

async function createWorkspaces(db: SqlDb, credits: CreditsService, count: number): Promise<string[]> {
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
async function singleRowDesign(db: SqlDb, workspaceIds: string[]): Promise<(i: number) => Promise<void>> {
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
  const db = sqlDbFromOrm(orm);
  const credits = createCreditsService({ db });
  const spread = await createWorkspaces(db, credits, 100);
  const hot = [spread[0]];
  const single = await singleRowDesign(db, spread);
  const cases: Record<string, (i: number) => Promise<void>> = {
    'ledger + pending charges, 1 hot workspace': ledgerDesign(credits, hot),
    'ledger + pending charges, 100 workspaces': ledgerDesign(credits, spread),
    'single row written twice, 1 hot workspace': (i) => single(i * 100),
    'single row written twice, 100 workspaces': single,
  };
  // Warm up connections and plans, then interleave the rounds so machine noise hits every case alike.
  await measure(ledgerDesign(credits, spread));
  const samples: Record<string, number[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, call] of Object.entries(cases)) (samples[name] ??= []).push(await measure(call));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(`billed-call bookkeeping (admit + settle), ${CALLS} calls, ${CONCURRENCY} in flight, median of ${ROUNDS} rounds, calls/s:`);
  console.table(Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, Math.round(median(values))])));
  await orm.close(true);
});
