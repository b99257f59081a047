import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlDbFromOrm } from '../../../adapters/db/sql.ts';
import { isCreditsRefusal } from '../../../adapters/billing/credits-refusal.ts';
import { createCreditsService, type CreditsService } from '../../../adapters/billing/credits-service.ts';
import { openBillingFixture, type BillingFixture } from './billing-fixture.ts';

const CALLS = 200;
const POST_PRICE = 3;
const MAX_POSTS = 100;

interface Outcome {
  kind: 'served' | 'failed' | 'refused';
  price: number;
  charged: number;
  refusal?: string;
}

/**
 * One billed call as the pipeline makes it: reserve for the largest result (1 + 3 × 100), return only what the
 * reservation covers (most calls want all 100 posts, so charges come close to holds), settle to the price of
 * what was returned; every 13th call fails upstream and is released. Starts are staggered so admissions keep
 * racing each other and settlements while the balance runs out.
 */
async function billedCall(credits: CreditsService, workspaceId: string, i: number): Promise<Outcome> {
  await new Promise((done) => setTimeout(done, i % 40));
  let reservation;
  try {
    reservation = await credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: 1 + POST_PRICE * MAX_POSTS });
  } catch (error) {
    if (!isCreditsRefusal(error)) throw error;
    return { kind: 'refused', price: 0, charged: 0, refusal: error.code };
  }
  await new Promise((done) => setTimeout(done, i % 7));
  if (i % 13 === 0) {
    await credits.release(reservation);
    return { kind: 'failed', price: 0, charged: 0 };
  }
  const wanted = i % 5 === 0 ? (i * 37) % (MAX_POSTS + 1) : MAX_POSTS;
  const posts = Math.min(wanted, Math.floor((reservation.credits - 1) / POST_PRICE));
  const price = 1 + POST_PRICE * posts;
  const { charged } = await credits.settle(reservation, price);
  return { kind: 'served', price, charged };
}

async function expectExactBooks(
  fixture: BillingFixture,
  credits: CreditsService,
  workspaceId: string,
  before: number,
  outcomes: Outcome[],
): Promise<void> {
  const served = outcomes.filter((o) => o.kind === 'served');
  const refused = outcomes.filter((o) => o.kind === 'refused');
  // The balance covers only part of the calls: some are served, some refused.
  expect(served.length).toBeGreaterThan(0);
  expect(refused.length).toBeGreaterThan(0);
  for (const outcome of outcomes) expect(outcome.charged).toBe(outcome.price);
  for (const outcome of refused) expect(['insufficient_credits', 'credits_held']).toContain(outcome.refusal);

  const totalCharged = outcomes.reduce((sum, o) => sum + o.charged, 0);
  const usage = await credits.usage(workspaceId);
  expect(usage?.reserved).toBe(0);
  expect(usage?.balance).toBe(before - totalCharged);
  expect(usage!.balance).toBeGreaterThanOrEqual(0);

  await credits.ledger(workspaceId, { limit: 1 });
  const totals = await fixture.ledgerTotals(workspaceId);
  expect(totals.charges).toBe(-totalCharged);
  expect(totals.chargeRows).toBe(served.length);
  expect(totals.credits).toBe(usage?.balance);
}

describe('credits under concurrency', () => {
  let fixture: BillingFixture;

  beforeAll(async () => {
    fixture = await openBillingFixture();
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it(`${CALLS} concurrent billed calls on one workspace: exact books, never negative`, async () => {
    const credits = createCreditsService({ db: fixture.db });
    const workspaceId = await fixture.createWorkspace({ freeGrant: true });
    await credits.recordPurchase(workspaceId, { usdCents: 500, credits: 3_000 });
    const before = (await credits.usage(workspaceId))!.balance;
    expect(before).toBe(8_000);

    let lowest = before;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const usage = await credits.usage(workspaceId);
        lowest = Math.min(lowest, usage!.balance, usage!.balance - usage!.reserved);
        await new Promise((done) => setTimeout(done, 2));
      }
    })();
    const outcomes = await Promise.all(Array.from({ length: CALLS }, (_, i) => billedCall(credits, workspaceId, i)));
    sampling = false;
    await sampler;

    // Holds never exceed the balance, at any moment observed.
    expect(lowest).toBeGreaterThanOrEqual(0);
    await expectExactBooks(fixture, credits, workspaceId, before, outcomes);
    const usage = await credits.usage(workspaceId);
    // Free grant first: the bought credits are only touched once the grant is gone.
    const spent = before - usage!.balance;
    expect(usage?.freeGrant?.remaining).toBe(Math.max(0, 5_000 - spent));
  });

  it('the same across two service instances on one database', async () => {
    // PostgreSQL: two ORMs with their own pools, as two processes would have. PGlite admits one process
    // (one connection), so there the second instance is a second service on that connection.
    const otherOrm = fixture.database.backend === 'postgresql' ? await fixture.openInstance() : fixture.orm;
    const first = createCreditsService({ db: fixture.db });
    const second = createCreditsService({ db: sqlDbFromOrm(otherOrm) });
    const workspaceId = await fixture.createWorkspace({ freeGrant: false });
    await first.recordPurchase(workspaceId, { usdCents: 1_000, credits: 6_000 });
    const before = (await second.usage(workspaceId))!.balance;

    const outcomes = await Promise.all(
      Array.from({ length: CALLS }, (_, i) => billedCall(i % 2 === 0 ? first : second, workspaceId, i)),
    );
    await expectExactBooks(fixture, first, workspaceId, before, outcomes);
    expect((await second.usage(workspaceId))?.balance).toBe((await first.usage(workspaceId))?.balance);
  });
});
