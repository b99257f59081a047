import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreditsRefusal } from '../../../adapters/billing/credits-refusal.ts';
import { createCreditsService } from '../../../adapters/billing/credits-service.ts';
import { openBillingFixture, type BillingFixture } from './billing-fixture.ts';

const HOUR = 3_600_000;
const TTL = 120_000;

/** An instance whose clock is `offsetMs` off the database's (real time, as the database's is). */
const skewedClock = (offsetMs: number) => () => new Date(Date.now() + offsetMs);

async function refusalCode(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(CreditsRefusal);
  return (error as CreditsRefusal).code;
}

describe('credit holds expire by the database clock, whatever the instances clocks say', () => {
  let fixture: BillingFixture;

  beforeAll(async () => {
    fixture = await openBillingFixture();
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it('an instance an hour behind or ahead neither expires a fresh hold early nor keeps a dead one alive', async () => {
    // No free grant: the billing month, which the instance clocks still decide, plays no part.
    const behind = createCreditsService({ db: fixture.db, clock: skewedClock(-HOUR), reservationTtlMs: TTL });
    const ahead = createCreditsService({ db: fixture.db, clock: skewedClock(HOUR), reservationTtlMs: TTL });
    const workspaceId = await fixture.createWorkspace({ freeGrant: false });
    await behind.recordPurchase(workspaceId, { usdCents: 0, credits: 100 });

    const before = await fixture.databaseNow();
    const hold = await behind.admit(workspaceId, { minimumCredits: 1, reserveCredits: 100 });
    const after = await fixture.databaseNow();
    // Its expiry is the database's now + ttl, not the admitting instance's.
    expect(hold.expiresAt.getTime()).toBeGreaterThanOrEqual(before.getTime() + TTL);
    expect(hold.expiresAt.getTime()).toBeLessThanOrEqual(after.getTime() + TTL + 1_000);

    // Fresh by the database: the instance ahead counts it and admits nothing against it.
    expect(await ahead.usage(workspaceId)).toMatchObject({ balance: 100, reserved: 100, available: 0 });
    expect(await refusalCode(ahead.admit(workspaceId, { minimumCredits: 1, reserveCredits: 100 }))).toBe('credits_held');
    expect(await ahead.sweepExpiredReservations()).toBe(0);

    // Expired by the database but within the grace: still counted by both.
    await fixture.moveHoldExpiry(hold.id, -1);
    expect(await behind.usage(workspaceId)).toMatchObject({ reserved: 100, available: 0 });
    expect(await refusalCode(ahead.admit(workspaceId, { minimumCredits: 1, reserveCredits: 1 }))).toBe('credits_held');
    expect(await ahead.sweepExpiredReservations()).toBe(0);

    // Dead by the database: the instance behind no longer counts it, admits against its credits, and sweeps it.
    await fixture.moveHoldExpiry(hold.id, -60_001);
    expect(await behind.usage(workspaceId)).toMatchObject({ reserved: 0, available: 100 });
    const next = await behind.admit(workspaceId, { minimumCredits: 1, reserveCredits: 100 });
    expect(next.credits).toBe(100);
    expect(await behind.sweepExpiredReservations()).toBe(1);
    expect(await fixture.holdIds(workspaceId)).toEqual([next.id]);

    // Exact: the dead hold's late settle takes only what is free (nothing); the live one is charged in full.
    expect(await behind.settle(hold, 100)).toEqual({ charged: 0, remaining: 100 });
    expect(await ahead.settle(next, 100)).toEqual({ charged: 100, remaining: 0 });
    await ahead.ledger(workspaceId);
    expect(await fixture.ledgerTotals(workspaceId)).toMatchObject({ credits: 0, charges: -100, chargeRows: 1 });
  });

  it('settles a fresh hold in full and lets it be extended on an instance whose clock is far past its expiry', async () => {
    const behind = createCreditsService({ db: fixture.db, clock: skewedClock(-HOUR), reservationTtlMs: TTL });
    const ahead = createCreditsService({ db: fixture.db, clock: skewedClock(HOUR), reservationTtlMs: TTL });
    const workspaceId = await fixture.createWorkspace({ freeGrant: false });
    await behind.recordPurchase(workspaceId, { usdCents: 0, credits: 100 });

    const hold = await behind.admit(workspaceId, { minimumCredits: 1, reserveCredits: 40 });
    const grown = await ahead.extend(hold, 20);
    expect(grown.credits).toBe(60);
    expect(await ahead.settle(grown, 60)).toEqual({ charged: 60, remaining: 40 });
    await ahead.ledger(workspaceId);
    expect(await fixture.ledgerTotals(workspaceId)).toMatchObject({ credits: 40, charges: -60, chargeRows: 1 });
  });
});
