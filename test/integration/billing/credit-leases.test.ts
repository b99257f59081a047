import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCreditsRefusal } from '../../../adapters/billing/credits-refusal.ts';
import { createCreditLeases, type CreditLeases, type LeaseRules } from '../../../adapters/billing/credit-leases.ts';
import { createCreditsService, type CreditsService } from '../../../adapters/billing/credits-service.ts';
import { withLeases } from '../../../adapters/billing/leased-credits.ts';
import { sqlDbFromOrm, type SqlDb } from '../../../adapters/db/sql.ts';
import { manualClock, openBillingFixture, type BillingFixture } from './billing-fixture.ts';

/** One service instance's billing: its own pool (PostgreSQL) or the one connection (PGlite), its leases. */
interface Instance {
  db: SqlDb;
  statements: { count: number };
  credits: CreditsService;
  leases: CreditLeases;
  /** What reads and operator actions use: usage and the ledger book every instance's charges first. */
  books: CreditsService;
}

/** Counts the statements an instance sends, to show that calls on a lease send none. */
function counted(db: SqlDb, statements: { count: number }): SqlDb {
  return {
    all: (text, params) => {
      statements.count += 1;
      return db.all(text, params);
    },
    transaction: (work) => {
      statements.count += 1;
      return db.transaction(work);
    },
  };
}

interface Outcome {
  status: 'served' | 'refused';
  charged: number;
  price: number;
  refusal?: string;
}

/**
 * A billed call as the pipeline makes it: admit its largest result; when the hold is smaller than the price
 * (an account near empty holds only what it has), extend it or refuse; settle exactly the price, or release.
 */
async function call(instance: Instance, workspaceId: string, hold: number, price: number): Promise<Outcome> {
  let admission;
  try {
    admission = await instance.leases.admit(workspaceId, { minimumCredits: 1, reserveCredits: hold });
  } catch (error) {
    if (!isCreditsRefusal(error)) throw error;
    return { status: 'refused', charged: 0, price: 0, refusal: error.code };
  }
  if (price === 0) {
    await instance.leases.release(admission);
    return { status: 'served', charged: 0, price: 0 };
  }
  if (price > admission.credits) {
    try {
      admission = await instance.leases.extend(admission, price - admission.credits);
    } catch (error) {
      if (!isCreditsRefusal(error)) throw error;
      await instance.leases.release(admission);
      return { status: 'refused', charged: 0, price: 0, refusal: error.code };
    }
  }
  const { charged } = await instance.leases.settle(admission, price);
  return { status: 'served', charged, price };
}

describe('credit leases', () => {
  let fixture: BillingFixture;
  const instances: Instance[] = [];
  /** The two instances the concurrent tests share, from the first of them on. */
  let pair: [Instance, Instance];

  async function instance(options: { clock?: () => Date; rules?: Partial<LeaseRules> } = {}): Promise<Instance> {
    // PostgreSQL: a pool of its own, as another process has. PGlite admits one connection: the same one.
    const orm = fixture.database.backend === 'postgresql' && instances.length > 0 ? await fixture.openInstance() : fixture.orm;
    const statements = { count: 0 };
    const db = counted(sqlDbFromOrm(orm), statements);
    const credits = createCreditsService({ db, clock: options.clock });
    const leases = createCreditLeases({ db, credits, clock: options.clock, rules: options.rules });
    const created = { db, statements, credits, leases, books: withLeases(credits, leases) };
    instances.push(created);
    return created;
  }

  beforeAll(async () => {
    fixture = await openBillingFixture();
  });
  afterAll(async () => {
    for (const { leases } of instances) await leases.close();
    await fixture?.close();
  });

  it('admits and settles calls on the lease without a statement per call; the books are exact once booked', async () => {
    // No sync of its own while the test runs (nor a lease running out on a slow machine): only the explicit one books.
    const one = await instance({ rules: { syncEveryMs: 3_600_000, ttlMs: 3_600_000 } });
    const workspaceId = await fixture.createWorkspace({ freeGrant: false });
    await one.books.recordPurchase(workspaceId, { usdCents: 1_000, credits: 100_000 });
    await call(one, workspaceId, 4, 4);
    const before = one.statements.count;
    const outcomes = [];
    for (let i = 0; i < 100; i++) outcomes.push(await call(one, workspaceId, 4, 4));
    expect(one.statements.count - before).toBe(0);
    expect(outcomes.every((outcome) => outcome.charged === 4)).toBe(true);

    const usage = await one.books.usage(workspaceId);
    expect(usage).toMatchObject({ balance: 100_000 - 101 * 4, reserved: 0 });
    await one.books.ledger(workspaceId);
    const totals = await fixture.ledgerTotals(workspaceId);
    expect(totals).toMatchObject({ credits: 100_000 - 404, charges: -404 });
    // The 101 calls settled on the lease, booked by the one sync the read asked for: one ledger row, not one per call.
    expect(totals.chargeRows).toBe(1);
    // The lease is sized by the rule: a quarter of what no one else holds, at most 10,000.
    const [lease] = await fixture.db.all<{ credits: unknown }>('select credits from billing_lease where workspace_id = ?', [workspaceId]);
    expect(Number(lease.credits)).toBe(10_000);
  });

  it('200 concurrent billed calls across two instances: Σ charged = balance change = ledger charges', async () => {
    pair = [await instance(), await instance()];
    const [first, second] = pair;
    const workspaceId = await fixture.createWorkspace({ freeGrant: true });
    await first.books.recordPurchase(workspaceId, { usdCents: 500, credits: 3_000 });
    const before = (await first.books.usage(workspaceId))!.balance;
    expect(before).toBe(8_000);

    // Holds of 4 or 301 credits, prices up to the hold, every 7th call failing (released, charged 0).
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, i) => {
        const hold = i % 3 === 0 ? 301 : 4;
        const price = i % 7 === 0 ? 0 : i % 3 === 0 ? 1 + 3 * (i % 100) : 4;
        return call(i % 2 === 0 ? first : second, workspaceId, hold, price);
      }),
    );
    for (const outcome of outcomes) expect(outcome.charged).toBe(outcome.price);
    const total = outcomes.reduce((sum, outcome) => sum + outcome.charged, 0);
    expect(total).toBeGreaterThan(0);

    const usage = await second.books.usage(workspaceId);
    expect(usage).toMatchObject({ balance: before - total, reserved: 0 });
    expect(usage!.freeGrant!.remaining).toBe(Math.max(0, 5_000 - total));
    await second.books.ledger(workspaceId);
    const totals = await fixture.ledgerTotals(workspaceId);
    expect(totals).toMatchObject({ credits: before - total, charges: -total });
    // A call held in the database is a row of its own; the calls settled on a lease, a row per sync.
    expect(totals.chargeRows).toBeLessThanOrEqual(outcomes.filter((outcome) => outcome.charged > 0).length);
    expect((await first.books.usage(workspaceId))!.balance).toBe(before - total);
  });

  it('a small balance across two instances never goes negative, and drains to the last credit without a credits_held from the other slice', async () => {
    const [first, second] = pair;
    const workspaceId = await fixture.createWorkspace({ freeGrant: false });
    await first.books.recordPurchase(workspaceId, { usdCents: 100, credits: 1_200 });

    let lowest = Infinity;
    let sampling = true;
    const sampler = (async () => {
      for (let i = 0; sampling && i < 10_000; i++) {
        const [row] = await fixture.db.all<{ balance: unknown }>(
          `select a.free_remaining + a.bought_remaining - coalesce((select sum(credits) from billing_pending_charge p where p.workspace_id = a.workspace_id), 0) as balance
           from billing_account a where a.workspace_id = ?`,
          [workspaceId],
        );
        lowest = Math.min(lowest, Number(row.balance));
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const burst = await Promise.all(Array.from({ length: 400 }, (_, i) => call(i % 2 === 0 ? first : second, workspaceId, 4, 4)));
    sampling = false;
    await sampler;
    const burstTotal = burst.reduce((sum, outcome) => sum + outcome.charged, 0);
    expect(burstTotal).toBeLessThanOrEqual(1_200);
    expect(burst.filter((outcome) => outcome.status === 'refused').length).toBeGreaterThan(0);

    // Whatever is left is spendable from either instance, alternately, down to the last credit: 402 only then.
    const drain: Outcome[] = [];
    for (let i = 0; i < 400; i++) {
      const outcome = await call(i % 2 === 0 ? second : first, workspaceId, 4, 4);
      drain.push(outcome);
      if (outcome.status === 'refused') break;
    }
    expect(drain.at(-1)).toMatchObject({ status: 'refused', refusal: 'insufficient_credits' });
    expect(drain.slice(0, -1).every((outcome) => outcome.charged === 4)).toBe(true);
    const total = burstTotal + drain.reduce((sum, outcome) => sum + outcome.charged, 0);
    expect(total).toBe(1_200);

    const usage = await first.books.usage(workspaceId);
    expect(usage).toMatchObject({ balance: 0, reserved: 0 });
    expect(lowest).toBeGreaterThanOrEqual(0);
    await first.books.ledger(workspaceId);
    expect(await fixture.ledgerTotals(workspaceId)).toMatchObject({ credits: 0, charges: -1_200 });
  });

  it("a call held in the database grows past the other instance's slice: the slice is recalled, not the call refused", async () => {
    const [first, second] = pair;
    const workspaceId = await fixture.createWorkspace({ freeGrant: false });
    await first.books.recordPurchase(workspaceId, { usdCents: 1_000, credits: 100_000 });
    await call(first, workspaceId, 4, 4);
    await first.books.usage(workspaceId);
    const [slice] = await fixture.db.all<{ credits: unknown }>('select credits from billing_lease where workspace_id = ?', [workspaceId]);
    expect(Number(slice.credits)).toBeGreaterThan(0);
    // Larger than any lease, so held in the database; its price then needs credits the first instance's slice holds.
    expect(await call(second, workspaceId, 60_000, 99_000)).toEqual({ status: 'served', charged: 99_000, price: 99_000 });
    expect(await second.books.usage(workspaceId)).toMatchObject({ balance: 100_000 - 4 - 99_000, reserved: 0 });
    await second.books.ledger(workspaceId);
    expect(await fixture.ledgerTotals(workspaceId)).toMatchObject({ credits: 996, charges: -99_004 });
  });

  it('a pause with leases outstanding refuses the next call on every instance; resuming restores them', async () => {
    const [first, second] = pair;
    const workspaceId = await fixture.createWorkspace({ freeGrant: false });
    await first.books.recordPurchase(workspaceId, { usdCents: 1_000, credits: 50_000 });
    await call(first, workspaceId, 4, 4);
    await call(second, workspaceId, 4, 4);
    const leased = await fixture.db.all('select 1 from billing_lease where workspace_id = ? and credits > 0', [workspaceId]);
    expect(leased).toHaveLength(2);

    await first.books.setSpendingPaused(workspaceId, true);
    expect(await call(second, workspaceId, 4, 4)).toMatchObject({ status: 'refused', refusal: 'spending_paused' });
    expect(await call(first, workspaceId, 4, 4)).toMatchObject({ status: 'refused', refusal: 'spending_paused' });
    const [held] = await fixture.db.all<{ credits: unknown }>('select coalesce(sum(credits), 0) as credits from billing_lease where workspace_id = ?', [workspaceId]);
    expect(Number(held.credits)).toBe(0);

    await second.books.setSpendingPaused(workspaceId, false);
    expect(await call(first, workspaceId, 4, 4)).toMatchObject({ status: 'served', charged: 4 });
    expect(await call(second, workspaceId, 4, 4)).toMatchObject({ status: 'served', charged: 4 });
    expect((await second.books.usage(workspaceId))!.balance).toBe(50_000 - 16);
  });

  it('a refund with leases outstanding takes back the slices too; the other instance sees the account empty', async () => {
    const [first, second] = pair;
    const workspaceId = await fixture.createWorkspace({ freeGrant: false });
    await first.books.recordPurchase(workspaceId, { usdCents: 10_000, credits: 40_000 });
    await call(first, workspaceId, 4, 4);
    await call(second, workspaceId, 4, 4);
    const [held] = await fixture.db.all<{ credits: unknown }>('select sum(credits) as credits from billing_lease where workspace_id = ?', [workspaceId]);
    expect(Number(held.credits)).toBeGreaterThan(10_000);

    // 8 credits were spent: only a partial refund goes through, booking the dollars' share of the rest, rounded down.
    await expect(first.books.recordRefund(workspaceId, { usdCents: 10_000, credits: 40_000 })).rejects.toThrow(/Only 39992 of the 40000/);
    const after = await first.books.recordRefund(workspaceId, { usdCents: 10_000, credits: 40_000, partial: true });
    expect(after).toMatchObject({ balance: 0, tier: 'free', refund: { usdCents: 9_998, usdCentsAsked: 10_000, creditsAsked: 40_000, creditsTakenBack: 40_000 - 8 } });
    expect((await first.books.ledger(workspaceId)).find((entry) => entry.kind === 'refund')).toMatchObject({ credits: -(40_000 - 8) });
    expect(await call(second, workspaceId, 4, 4)).toMatchObject({ status: 'refused', refusal: 'insufficient_credits' });
    expect(await fixture.ledgerTotals(workspaceId)).toMatchObject({ credits: 0, charges: -8 });
  });

  it('a sync whose answer is lost, then whose retry fails, books each charge exactly once', async () => {
    // The database applies the first sync but its answer never arrives; the retry fails before reaching it.
    const faults: Array<'after' | 'before'> = [];
    const base = sqlDbFromOrm(fixture.orm);
    const db: SqlDb = {
      async all(text, params) {
        const fault = text.includes('billing_lease_sync') ? faults.shift() : undefined;
        if (fault === 'before') throw new Error('connection refused');
        const rows = await base.all(text, params);
        if (fault === 'after') throw new Error('connection terminated');
        return rows as never;
      },
      transaction: (work) => base.transaction(work),
    };
    const credits = createCreditsService({ db });
    // Syncs only when the test asks, so the faults meet the syncs they are meant for.
    const leases = createCreditLeases({ db, credits, rules: { syncEveryMs: 3_600_000 } });
    const one = { db, statements: { count: 0 }, credits, leases, books: withLeases(credits, leases) };
    instances.push(one);
    const workspaceId = await fixture.createWorkspace({ freeGrant: false });
    await one.books.recordPurchase(workspaceId, { usdCents: 1_000, credits: 10_000 });
    expect(await call(one, workspaceId, 4, 4)).toMatchObject({ charged: 4 });

    faults.push('after', 'before');
    expect(await call(one, workspaceId, 7, 7)).toMatchObject({ charged: 7 });
    await expect(one.leases.exactBooks(workspaceId)).rejects.toThrow('connection terminated');
    expect(await call(one, workspaceId, 9, 9)).toMatchObject({ charged: 9 });
    await expect(one.leases.exactBooks(workspaceId)).rejects.toThrow('connection refused');
    expect(await call(one, workspaceId, 11, 11)).toMatchObject({ charged: 11 });

    expect((await one.books.usage(workspaceId))!.balance).toBe(10_000 - 31);
    await one.books.ledger(workspaceId);
    // Two rows: 4 + 7, settled before the sync whose answer was lost, resent alone by both retries; 9 + 11,
    // settled after that sync sealed its batch, booked by the sync after the retry that got through.
    expect(await fixture.ledgerTotals(workspaceId)).toMatchObject({ credits: 10_000 - 31, charges: -31, chargeRows: 2 });
  });

  it('pays charges settled after the month turned from the new grant', async () => {
    const clock = manualClock('2026-01-31T23:59:58Z');
    const one = await instance({ clock: clock.now });
    const workspaceId = await fixture.createWorkspace({ freeGrant: true });
    await one.books.recordPurchase(workspaceId, { usdCents: 500, credits: 700 });
    expect(await call(one, workspaceId, 1_000, 1_000)).toMatchObject({ charged: 1_000 });
    const late = await one.leases.admit(workspaceId, { minimumCredits: 1, reserveCredits: 50 });

    clock.set('2026-02-01T00:00:01Z');
    expect(await one.leases.settle(late, 50)).toMatchObject({ charged: 50 });
    expect(await one.books.usage(workspaceId)).toMatchObject({
      balance: 5_650,
      freeGrant: { granted: 5_000, remaining: 4_950, resetsAt: '2026-03-01T00:00:00.000Z' },
    });
    const kinds = (await one.books.ledger(workspaceId)).map((entry) => [entry.kind, entry.credits, entry.freeCredits]);
    expect(kinds).toEqual([
      ['charge', -50, -50],
      ['grant', 5_000, 5_000],
      ['grant_expiry', -4_000, -4_000],
      ['charge', -1_000, -1_000],
      ['purchase', 700, 0],
      ['grant', 5_000, 5_000],
    ]);
  });
});
