import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreditsRefusal } from '../../../adapters/billing/credits-refusal.ts';
import { createCreditsService, type CreditsService } from '../../../adapters/billing/credits-service.ts';
import { manualClock, openBillingFixture, type BillingFixture } from './billing-fixture.ts';

async function refusalOf(promise: Promise<unknown>): Promise<CreditsRefusal> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CreditsRefusal);
  return error as CreditsRefusal;
}

/** Admits and settles one call of exactly `credits`. */
async function spend(credits: CreditsService, workspaceId: string, amount: number): Promise<number> {
  const reservation = await credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: amount });
  return (await credits.settle(reservation, amount)).charged;
}

describe('billing rules', () => {
  let fixture: BillingFixture;

  beforeAll(async () => {
    fixture = await openBillingFixture();
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it('reports the spec Usage and Limits objects for a new workspace that receives the grant', async () => {
    const clock = manualClock('2026-03-14T10:00:00Z');
    const credits = createCreditsService({ db: fixture.db, clock: clock.now });
    const workspaceId = await fixture.createWorkspace({ freeGrant: true });
    expect(await credits.usage(workspaceId)).toEqual({
      balance: 5_000,
      reserved: 0,
      available: 5_000,
      freeGrant: { granted: 5_000, remaining: 5_000, resetsAt: '2026-04-01T00:00:00.000Z' },
      tier: 'free',
      spendingPaused: false,
    });
    expect(await credits.limits(workspaceId)).toEqual({
      tier: 'free', rateLimitPerMinute: 60, maxMonitors: 3, maxWebhooks: 1, hourlySchedules: false,
    });
  });

  it('gives no grant to a workspace not flagged for it, and refuses its billed calls with insufficient_credits', async () => {
    const credits = createCreditsService({ db: fixture.db });
    const workspaceId = await fixture.createWorkspace({ freeGrant: false });
    const usage = await credits.usage(workspaceId);
    expect(usage).toMatchObject({ balance: 0, available: 0, freeGrant: null, tier: 'free' });
    const refusal = await refusalOf(credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: 301 }));
    expect(refusal.code).toBe('insufficient_credits');
    expect(await fixture.ledgerTotals(workspaceId)).toMatchObject({ credits: 0, chargeRows: 0 });
  });

  it('returns null for a workspace that does not exist', async () => {
    const credits = createCreditsService({ db: fixture.db });
    expect(await credits.usage('00000000-0000-4000-8000-00000000dead')).toBeNull();
    expect(await credits.limits('not-a-uuid')).toBeNull();
  });

  it('spends the free grant before bought credits, splitting the charge that crosses over', async () => {
    const credits = createCreditsService({ db: fixture.db });
    const workspaceId = await fixture.createWorkspace({ freeGrant: true });
    await credits.recordPurchase(workspaceId, { usdCents: 500, credits: 1_000 });
    expect(await spend(credits, workspaceId, 4_900)).toBe(4_900);
    expect(await credits.usage(workspaceId)).toMatchObject({ balance: 1_100, freeGrant: { remaining: 100 } });
    expect(await spend(credits, workspaceId, 301)).toBe(301);
    expect(await credits.usage(workspaceId)).toMatchObject({ balance: 799, freeGrant: { remaining: 0 } });

    const [crossing, first] = (await credits.ledger(workspaceId)).filter((e) => e.kind === 'charge');
    expect(first).toMatchObject({ credits: -4_900, freeCredits: -4_900, boughtCredits: 0 });
    expect(crossing).toMatchObject({ credits: -301, freeCredits: -100, boughtCredits: -201 });
    expect(await fixture.ledgerTotals(workspaceId)).toMatchObject({ credits: 799, free: 0, bought: 799 });
  });

  it('replaces the grant at the start of the UTC month without carrying the rest over; bought credits stay', async () => {
    const clock = manualClock('2026-01-31T23:59:58Z');
    const credits = createCreditsService({ db: fixture.db, clock: clock.now });
    const workspaceId = await fixture.createWorkspace({ freeGrant: true });
    await credits.recordPurchase(workspaceId, { usdCents: 500, credits: 700 });
    expect(await spend(credits, workspaceId, 1_000)).toBe(1_000);
    expect(await credits.usage(workspaceId)).toMatchObject({
      balance: 4_700,
      freeGrant: { granted: 5_000, remaining: 4_000, resetsAt: '2026-02-01T00:00:00.000Z' },
    });
    // A call admitted in January and settled in February is paid from February's grant.
    const lateCall = await credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: 50 });

    clock.set('2026-02-01T00:00:01Z');
    expect(await credits.settle(lateCall, 50)).toMatchObject({ charged: 50 });
    expect(await credits.usage(workspaceId)).toMatchObject({
      balance: 5_650,
      freeGrant: { granted: 5_000, remaining: 4_950, resetsAt: '2026-03-01T00:00:00.000Z' },
    });
    const kinds = (await credits.ledger(workspaceId)).map((e) => [e.kind, e.credits, e.freeCredits]);
    expect(kinds).toEqual([
      ['charge', -50, -50],
      ['grant', 5_000, 5_000],
      ['grant_expiry', -4_000, -4_000],
      ['charge', -1_000, -1_000],
      ['purchase', 700, 0],
      ['grant', 5_000, 5_000],
    ]);

    // A month with nothing spent: the whole grant expires and a new one arrives; still no carry-over.
    expect(await credits.usage(workspaceId, new Date('2026-04-15T12:00:00Z'))).toMatchObject({
      balance: 5_700,
      freeGrant: { remaining: 5_000, resetsAt: '2026-05-01T00:00:00.000Z' },
    });
    expect(await fixture.ledgerTotals(workspaceId)).toMatchObject({ credits: 5_700, free: 5_000, bought: 700 });
  });

  it('promotes the tier at each threshold of net purchases; spending and time never lower it', async () => {
    const clock = manualClock('2026-05-01T00:00:00Z');
    const credits = createCreditsService({ db: fixture.db, clock: clock.now });
    const workspaceId = await fixture.createWorkspace({ freeGrant: false });
    const tierAfter = async (usdCents: number) =>
      (await credits.recordPurchase(workspaceId, { usdCents, credits: usdCents * 10 })).tier;
    expect(await tierAfter(499)).toBe('free');
    expect(await tierAfter(1)).toBe('t1'); // $5.00
    expect(await tierAfter(9_499)).toBe('t1'); // $99.99
    expect(await tierAfter(1)).toBe('t2'); // $100.00
    expect(await tierAfter(39_999)).toBe('t2'); // $499.99
    expect(await tierAfter(1)).toBe('t3'); // $500.00
    expect(await credits.limits(workspaceId)).toEqual({
      tier: 't3', rateLimitPerMinute: 3_000, maxMonitors: 500, maxWebhooks: 50, hourlySchedules: true,
    });

    const balance = (await credits.usage(workspaceId))!.balance;
    expect(await spend(credits, workspaceId, balance)).toBe(balance);
    clock.set('2027-09-01T00:00:00Z');
    expect(await credits.usage(workspaceId)).toMatchObject({ balance: 0, tier: 't3' });
  });

  it('a refund takes back unspent bought credits and lowers the tier when net purchases fall below a threshold', async () => {
    const credits = createCreditsService({ db: fixture.db });
    const workspaceId = await fixture.createWorkspace({ freeGrant: false });
    await credits.recordPurchase(workspaceId, { usdCents: 10_000, credits: 20_000 });
    expect((await credits.usage(workspaceId))?.tier).toBe('t2');
    await spend(credits, workspaceId, 15_000);
    const held = await credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: 3_000 });

    // $10 back with 10,000 credits asked: only the 2,000 neither spent nor held by the call in flight can go, so it is
    // refused whole, changing nothing (review F8: it took back 2,000 and booked all $10) ...
    await expect(credits.recordRefund(workspaceId, { usdCents: 1_000, credits: 10_000 })).rejects.toThrow(/Only 2000 of the 10000 credits asked .* book 200 of the 1000 cents/);
    expect(await credits.usage(workspaceId)).toMatchObject({ tier: 't2', balance: 5_000, available: 2_000 });
    expect((await credits.ledger(workspaceId)).filter((entry) => entry.kind === 'refund')).toEqual([]);
    // ... unless asked as partial: those 2,000 go, with the dollars' share of them (a fifth).
    const after = await credits.recordRefund(workspaceId, { usdCents: 1_000, credits: 10_000, partial: true, note: 'dispute #1' });
    expect(after).toMatchObject({ tier: 't1', balance: 3_000, reserved: 3_000, available: 0, refund: { usdCents: 200, usdCentsAsked: 1_000, creditsAsked: 10_000, creditsTakenBack: 2_000 } });
    expect((await credits.ledger(workspaceId)).find((entry) => entry.kind === 'refund')).toMatchObject({
      kind: 'refund', credits: -2_000, boughtCredits: -2_000, usdCents: -200, note: 'dispute #1',
    });
    expect(await credits.settle(held, 3_000)).toEqual({ charged: 3_000, remaining: 0 });

    // Dollars alone (no credits asked) are booked whole, and lower the tier.
    await expect(credits.recordRefund(workspaceId, { usdCents: 9_801, credits: 0 })).rejects.toThrow(RangeError);
    expect(await credits.recordRefund(workspaceId, { usdCents: 9_800, credits: 0 })).toMatchObject({ tier: 'free', refund: { usdCents: 9_800, usdCentsAsked: 9_800, creditsAsked: 0, creditsTakenBack: 0 } });
    expect(await fixture.ledgerTotals(workspaceId)).toMatchObject({ credits: 0, bought: 0 });
  });

  it('refuses billed calls with spending_paused while paused; usage keeps answering; resuming restores them', async () => {
    const credits = createCreditsService({ db: fixture.db });
    const workspaceId = await fixture.createWorkspace({ freeGrant: true });
    expect((await credits.setSpendingPaused(workspaceId, true)).spendingPaused).toBe(true);
    const refusal = await refusalOf(credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: 10 }));
    expect(refusal.code).toBe('spending_paused');
    expect(await credits.usage(workspaceId)).toMatchObject({ balance: 5_000, reserved: 0, spendingPaused: true });
    expect((await credits.setSpendingPaused(workspaceId, false)).spendingPaused).toBe(false);
    expect(await spend(credits, workspaceId, 10)).toBe(10);
  });

  it('credits_held while holds cover the balance, insufficient_credits once it is spent', async () => {
    const credits = createCreditsService({ db: fixture.db });
    const workspaceId = await fixture.createWorkspace({ freeGrant: false });
    await credits.recordPurchase(workspaceId, { usdCents: 100, credits: 10 });
    const first = await credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: 301 });
    expect(first.credits).toBe(10);
    const held = await refusalOf(credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: 301 }));
    expect(held).toMatchObject({ code: 'credits_held', balance: 10, available: 0, minimumCredits: 1 });
    // Never more than was reserved, whatever the call asks.
    expect(await credits.settle(first, 301)).toEqual({ charged: 10, remaining: 0 });
    const empty = await refusalOf(credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: 301 }));
    expect(empty).toMatchObject({ code: 'insufficient_credits', balance: 0 });
  });

  it('holds min(requested, available) above the minimum; release charges nothing; a handle settles once', async () => {
    const credits = createCreditsService({ db: fixture.db });
    const workspaceId = await fixture.createWorkspace({ freeGrant: false });
    await credits.recordPurchase(workspaceId, { usdCents: 100, credits: 500 });
    const big = await credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: 301 });
    const rest = await credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: 301 });
    expect([big.credits, rest.credits]).toEqual([301, 199]);
    expect(await credits.usage(workspaceId)).toMatchObject({ balance: 500, reserved: 500, available: 0 });
    await credits.release(big);
    await expect(credits.settle(big, 1)).rejects.toThrow(/already settled or released/);
    expect(await credits.settle(rest, 0)).toEqual({ charged: 0, remaining: 500 });
    expect(await credits.usage(workspaceId)).toMatchObject({ balance: 500, reserved: 0, available: 500 });
    expect(await fixture.ledgerTotals(workspaceId)).toMatchObject({ credits: 500, chargeRows: 0 });
  });

  it('stops counting a reservation a grace period after its expiry; a late settlement takes only what is still available; the sweep deletes it', async () => {
    const clock = manualClock('2026-06-10T08:00:00Z');
    const credits = createCreditsService({ db: fixture.db, clock: clock.now, reservationTtlMs: 1_000 });
    const workspaceId = await fixture.createWorkspace({ freeGrant: false });
    await credits.recordPurchase(workspaceId, { usdCents: 500, credits: 1_000 });
    const dead = await credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: 1_000 });
    expect((await refusalOf(credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: 10 }))).code).toBe('credits_held');

    await fixture.moveHoldExpiry(dead.id, -1);
    // Expired, but within the grace: still held, so no other call can be admitted against it yet.
    expect(await credits.usage(workspaceId)).toMatchObject({ reserved: 1_000, available: 0 });
    expect((await refusalOf(credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: 10 }))).code).toBe('credits_held');
    await credits.sweepExpiredReservations();
    expect(await fixture.holdIds(workspaceId)).toEqual([dead.id]);
    await fixture.moveHoldExpiry(dead.id, -60_001);
    expect(await credits.usage(workspaceId)).toMatchObject({ reserved: 0, available: 1_000 });
    const next = await credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: 600 });
    expect(next.credits).toBe(600);
    expect(await credits.sweepExpiredReservations()).toBeGreaterThanOrEqual(1);
    expect(await fixture.holdIds(workspaceId)).toEqual([next.id]);
    expect(await credits.settle(dead, 700)).toEqual({ charged: 400, remaining: 600 });
    expect(await credits.settle(next, 600)).toEqual({ charged: 600, remaining: 0 });
    expect(await credits.usage(workspaceId)).toMatchObject({ balance: 0, reserved: 0 });
    await credits.ledger(workspaceId);
    expect(await fixture.ledgerTotals(workspaceId)).toMatchObject({ credits: 0, charges: -1_000, chargeRows: 2 });
  });

  it('never lets a just-expired hold be spent twice: admit keeps counting it while its own settle may still charge it', async () => {
    const clock = manualClock('2026-06-10T08:00:00Z');
    const credits = createCreditsService({ db: fixture.db, clock: clock.now, reservationTtlMs: 1_000 });
    const workspaceId = await fixture.createWorkspace({ freeGrant: false });
    await credits.recordPurchase(workspaceId, { usdCents: 0, credits: 100 });
    const first = await credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: 100 });
    await fixture.moveHoldExpiry(first.id, -500);
    // Another call, after the expiry, asks for the same credits: refused while the grace lasts.
    expect((await refusalOf(credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: 100 }))).code).toBe('credits_held');
    expect(await credits.settle(first, 100)).toEqual({ charged: 100, remaining: 0 });
    expect(await credits.usage(workspaceId)).toMatchObject({ balance: 0, reserved: 0 });
    await credits.ledger(workspaceId);
    expect(await fixture.ledgerTotals(workspaceId)).toMatchObject({ credits: 0, charges: -100, chargeRows: 1 });
  });

  it('extends a live hold only from credits no other hold covers, atomically, and finishes the old handle', async () => {
    const clock = manualClock('2026-06-10T08:00:00Z');
    const credits = createCreditsService({ db: fixture.db, clock: clock.now, reservationTtlMs: 1_000 });
    const workspaceId = await fixture.createWorkspace({ freeGrant: false });
    await credits.recordPurchase(workspaceId, { usdCents: 0, credits: 100 });
    const small = await credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: 10 });
    const grown = await credits.extend(small, 30);
    expect(grown.credits).toBe(40);
    await expect(credits.settle(small, 10)).rejects.toThrow(/already settled or released/);
    const other = await credits.admit(workspaceId, { minimumCredits: 1, reserveCredits: 60 });
    expect(other.credits).toBe(60);
    // 100 − 40 − 60 = 0 free: balance covers 50 for `grown` but the rest is held by `other`.
    expect((await refusalOf(credits.extend(grown, 10))).code).toBe('credits_held');
    expect(await credits.usage(workspaceId)).toMatchObject({ reserved: 100, available: 0 });
    expect(await credits.settle(grown, 40)).toEqual({ charged: 40, remaining: 60 });
    expect((await refusalOf(credits.extend(other, 1))).code).toBe('insufficient_credits');
    await fixture.moveHoldExpiry(other.id, -1);
    expect((await refusalOf(credits.extend(other, 1))).code).toBe('insufficient_credits');
    expect(await credits.settle(other, 60)).toEqual({ charged: 60, remaining: 0 });
    await credits.ledger(workspaceId);
    expect(await fixture.ledgerTotals(workspaceId)).toMatchObject({ credits: 0, charges: -100, chargeRows: 2 });
  });
});
