import { randomUUID } from 'node:crypto';
import type { LedgerKind } from '../db/entities/billing-ledger-entry.ts';
import { monthLabel, monthStart, nextMonthStart, systemClock, type Clock } from './billing-month.ts';
import { bind, run, toInt, type SqlDb, type SqlRunner } from '../db/sql.ts';
import { CreditsConflict, CreditsRefusal } from './credits-refusal.ts';
import * as sql from './credits-statements.ts';
import { DEFAULT_TIERS, tierForNetPurchases, type Tier, type TierLimits, type TierTable } from './tiers.ts';

export const FREE_GRANT_CREDITS = 5_000;
/** How long a reservation holds credits if its call never settles: well above any call's upstream timeouts. */
export const DEFAULT_RESERVATION_TTL_MS = 120_000;
/** Admissions fold settled charges into the ledger once this many wait: one account-row write per batch. */
export const FOLD_BATCH = 16;

/** Credits held by one billed call in flight. `credits` is the most `settle` will ever charge for it. */
export interface Reservation {
  readonly id: string;
  readonly workspaceId: string;
  readonly credits: number;
  readonly expiresAt: Date;
}

/** The spec's Usage object. */
export interface Usage {
  balance: number;
  reserved: number;
  available: number;
  freeGrant: { granted: number; remaining: number; resetsAt: string } | null;
  tier: Tier;
  spendingPaused: boolean;
}

/**
 * What a refund booked: the credits taken back (only bought credits neither spent nor held by calls in flight are
 * taken; fewer than asked, even none, only when the refund was asked as partial) and the dollars they are worth
 * (docs/billing.md "Tiers").
 */
export interface RefundBooked {
  /** Booked: all of `usdCentsAsked` when every credit asked came back, else its share, rounded down to a cent. */
  usdCents: number;
  usdCentsAsked: number;
  creditsAsked: number;
  creditsTakenBack: number;
}

/** The spec's Limits object. */
export interface Limits extends TierLimits {
  tier: Tier;
}

export interface LedgerEntry {
  id: number;
  kind: LedgerKind;
  credits: number;
  freeCredits: number;
  boughtCredits: number;
  usdCents: number;
  reservationId: string | null;
  note: string | null;
  createdAt: string;
}

export interface CreditsService {
  /**
   * Admits a billed call or throws CreditsRefusal. Holds min(reserveCredits, available), never less than
   * minimumCredits. Free calls never come here (they keep working while spending is paused).
   */
  admit(workspaceId: string, request: { minimumCredits: number; reserveCredits: number }): Promise<Reservation>;
  /**
   * Grows a live hold by `extra` credits, atomically under the admission lock, when the credits no hold covers
   * allow it; otherwise throws CreditsRefusal and leaves the hold as it was. The old handle is finished: settle
   * or release the returned one.
   */
  extend(reservation: Reservation, extra: number): Promise<Reservation>;
  /**
   * Charges min(credits, reservation.credits) and releases the rest; `remaining` is the balance after it. `within`
   * runs the charge in the caller's transaction, so it commits with what was charged for, or not at all.
   */
  settle(reservation: Reservation, credits: number, within?: SqlRunner): Promise<{ charged: number; remaining: number }>;
  /** The call failed or was refused: nothing is charged. */
  release(reservation: Reservation): Promise<void>;
  /** null when the workspace does not exist. `now` defaults to the service's clock. */
  usage(workspaceId: string, now?: Date): Promise<Usage | null>;
  limits(workspaceId: string): Promise<Limits | null>;
  recordPurchase(workspaceId: string, purchase: { usdCents: number; credits: number; note?: string }): Promise<Usage>;
  /**
   * Takes back `credits` bought credits not spent nor held, and books `usdCents`; refuses (CreditsConflict) a refund
   * above the net purchases, and one that cannot take back every credit asked unless `partial`, which takes back
   * what it can and books the dollars' share (RefundBooked).
   */
  recordRefund(workspaceId: string, refund: { usdCents: number; credits: number; partial?: boolean; note?: string }): Promise<Usage & { refund: RefundBooked }>;
  setSpendingPaused(workspaceId: string, paused: boolean): Promise<Usage>;
  /** Newest first; settled charges are folded in first, so the ledger sums to the balance. */
  ledger(workspaceId: string, options?: { limit?: number }): Promise<LedgerEntry[]>;
  /** Deletes reservations past their expiry and grace (they already stopped counting); returns how many. */
  sweepExpiredReservations(): Promise<number>;
}

export interface CreditsServiceOptions {
  db: SqlDb;
  clock?: Clock;
  tiers?: TierTable;
  reservationTtlMs?: number;
  freeGrantCredits?: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface AccountRow {
  receives_free_grant: boolean;
  spending_paused: boolean;
  free_granted: unknown;
  free_remaining: unknown;
  bought_remaining: unknown;
  net_purchase_cents: unknown;
  stale: boolean;
  pending: unknown;
  reserved: unknown;
}

interface AdmitRow {
  balance: unknown;
  reserved: unknown;
  spending_paused: boolean;
  stale: boolean;
  held: unknown;
  held_until: string | Date;
}

export function createCreditsService(options: CreditsServiceOptions): CreditsService {
  const { db } = options;
  const clock = options.clock ?? systemClock;
  const tiers = options.tiers ?? DEFAULT_TIERS;
  const ttlMs = options.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS;
  const grant = options.freeGrantCredits ?? FREE_GRANT_CREDITS;
  // A handle is settled or released once; a second call is a bug in the caller and would double-charge.
  const finished = new WeakSet<Reservation>();

  const times = (now: Date) => ({ now: now.toISOString(), periodStart: monthStart(now).toISOString() });

  /** Opens the account if needed and, at a new month, folds last month's charges then renews the grant. */
  function openAndRenew(workspaceId: string, now: Date): Promise<void> {
    const period = monthStart(now);
    const previous = new Date(Date.UTC(period.getUTCFullYear(), period.getUTCMonth() - 1, 1));
    const values = {
      workspaceId, ...times(now), grant, foldAtLeast: 1,
      expiryNote: `free grant for ${monthLabel(previous)} expired: unused credits do not roll over`,
      grantNote: `free grant for ${monthLabel(period)}`,
    };
    return db.transaction(async (tx: SqlRunner) => {
      for (const statement of [sql.OPEN_ACCOUNT, sql.FOLD, sql.RENEW_FREE_GRANT, sql.FOLD]) await run(tx, bind(statement, values));
    });
  }

  async function readAccount(workspaceId: string, now = clock()): Promise<AccountRow | null> {
    if (!UUID.test(workspaceId)) return null;
    const read = bind(sql.READ_ACCOUNT, { workspaceId, ...times(now) });
    let [row] = await run<AccountRow>(db, read);
    if (!row || row.stale) {
      await openAndRenew(workspaceId, now);
      [row] = await run<AccountRow>(db, read);
    }
    return row ?? null;
  }

  function toUsage(row: AccountRow, now = clock()): Usage {
    const pending = toInt(row.pending);
    const free = toInt(row.free_remaining);
    const balance = Math.max(0, free + toInt(row.bought_remaining) - pending);
    const reserved = toInt(row.reserved);
    return {
      balance,
      reserved,
      available: Math.max(0, balance - reserved),
      // Pending charges are paid from the free grant first, exactly as folding will book them.
      freeGrant: row.receives_free_grant
        ? { granted: toInt(row.free_granted), remaining: Math.max(0, free - pending), resetsAt: nextMonthStart(now).toISOString() }
        : null,
      tier: tierForNetPurchases(tiers, toInt(row.net_purchase_cents)),
      spendingPaused: row.spending_paused,
    };
  }

  async function requireUsage(workspaceId: string): Promise<Usage> {
    const row = await readAccount(workspaceId);
    if (!row) throw new RangeError(`No workspace ${workspaceId}.`);
    return toUsage(row);
  }

  function finish(reservation: Reservation): void {
    if (finished.has(reservation)) throw new Error(`Reservation ${reservation.id} was already settled or released.`);
    finished.add(reservation);
  }

  return {
    async admit(workspaceId, { minimumCredits, reserveCredits }) {
      if (!Number.isInteger(minimumCredits) || minimumCredits < 1 || !Number.isInteger(reserveCredits)) {
        throw new RangeError('admit needs an integer minimumCredits ≥ 1 and an integer reserveCredits.');
      }
      // Built only when thrown: an Error captures a stack trace, too costly for every admission.
      const refusedEmpty = () => new CreditsRefusal('insufficient_credits', { balance: 0, available: 0, minimumCredits });
      if (!UUID.test(workspaceId)) throw refusedEmpty();
      const now = clock();
      const values = {
        workspaceId, ...times(now), reservationId: randomUUID(), ttlMs,
        reserve: Math.max(reserveCredits, minimumCredits), minimum: minimumCredits, foldAtLeast: FOLD_BATCH,
      };
      const admit = bind(sql.ADMIT, values);
      let [decision] = await run<AdmitRow>(db, admit);
      if (!decision || decision.stale) {
        // First call of the account, or first of a new month: open it, renew its grant, decide again.
        await openAndRenew(workspaceId, now);
        [decision] = await run<AdmitRow>(db, admit);
      }
      if (!decision) throw refusedEmpty();
      const balance = toInt(decision.balance);
      if (decision.held !== null && decision.held !== undefined) {
        // The hold's expiry by the database's clock, which alone judges it.
        const expiresAt = new Date(decision.held_until);
        return { id: values.reservationId, workspaceId, credits: toInt(decision.held), expiresAt };
      }
      const figures = { balance, available: Math.max(0, balance - toInt(decision.reserved)), minimumCredits };
      if (decision.spending_paused) throw new CreditsRefusal('spending_paused', figures);
      if (balance < minimumCredits) throw new CreditsRefusal('insufficient_credits', figures);
      throw new CreditsRefusal('credits_held', figures);
    },

    async extend(reservation, extra) {
      if (!Number.isInteger(extra) || extra < 1) throw new RangeError('extend needs an integer extra ≥ 1.');
      if (finished.has(reservation)) throw new Error(`Reservation ${reservation.id} was already settled or released.`);
      const values = { reservationId: reservation.id, workspaceId: reservation.workspaceId, extra, ...times(clock()) };
      const rows = await db.transaction(async (tx) => {
        const lock = bind(sql.LOCK_ADMISSIONS, values);
        await tx.all(lock.sql, lock.params);
        const grow = bind(sql.EXTEND, values);
        return tx.all<{ credits: unknown }>(grow.sql, grow.params);
      });
      if (rows.length === 0) {
        const usage = await requireUsage(reservation.workspaceId);
        // What this call can use is what others leave, its own hold included; what it needs is its result's price.
        const figures = { balance: usage.balance, available: Math.min(usage.balance, usage.available + reservation.credits), price: reservation.credits + extra };
        if (usage.spendingPaused) throw new CreditsRefusal('spending_paused', figures);
        if (usage.balance < reservation.credits + extra) throw new CreditsRefusal('insufficient_credits', figures);
        throw new CreditsRefusal('credits_held', figures);
      }
      finish(reservation);
      return { ...reservation, credits: toInt(rows[0].credits) };
    },

    async settle(reservation, credits, within) {
      if (!Number.isInteger(credits) || credits < 0) throw new RangeError('settle needs an integer credits ≥ 0.');
      finish(reservation);
      const charge = Math.min(credits, reservation.credits);
      const values = { reservationId: reservation.id, workspaceId: reservation.workspaceId, charge, ...times(clock()) };
      if (charge === 0) {
        await run(within ?? db, bind(sql.RELEASE, values));
        return { charged: 0, remaining: (await requireUsage(reservation.workspaceId)).balance };
      }
      const [row] = await run<{ charged: unknown; remaining: unknown }>(within ?? db, bind(sql.SETTLE, values));
      return { charged: toInt(row?.charged), remaining: toInt(row?.remaining) };
    },

    async release(reservation) {
      finish(reservation);
      await run(db, bind(sql.RELEASE, { reservationId: reservation.id }));
    },

    async usage(workspaceId, now = clock()) {
      const row = await readAccount(workspaceId, now);
      return row ? toUsage(row, now) : null;
    },

    async limits(workspaceId) {
      const row = await readAccount(workspaceId);
      if (!row) return null;
      const tier = tierForNetPurchases(tiers, toInt(row.net_purchase_cents));
      const { rateLimitPerMinute, maxMonitors, maxWebhooks, hourlySchedules } = tiers[tier];
      return { tier, rateLimitPerMinute, maxMonitors, maxWebhooks, hourlySchedules };
    },

    async recordPurchase(workspaceId, { usdCents, credits, note }) {
      assertAmounts(usdCents, credits);
      await requireUsage(workspaceId);
      await run(db, bind(sql.PURCHASE, { workspaceId, usdCents, credits, note: note ?? null, ...times(clock()) }));
      return requireUsage(workspaceId);
    },

    async recordRefund(workspaceId, { usdCents, credits, partial = false, note }) {
      assertAmounts(usdCents, credits);
      await requireUsage(workspaceId);
      const values = { workspaceId, usdCents, credits, partial, note: note ?? null, foldAtLeast: 1, ...times(clock()) };
      // Under the admission lock: what is neither spent nor held must not change while the refund takes it.
      const [row] = await db.transaction(async (tx) => {
        await run(tx, bind(sql.LOCK_ADMISSIONS, values));
        const rows = await run<{ within_net: boolean; clawback: unknown; usd_cents: unknown; booked: boolean }>(tx, bind(sql.REFUND, values));
        await run(tx, bind(sql.FOLD, values));
        return rows;
      });
      if (!row?.within_net) throw new CreditsConflict(`A refund of ${usdCents} cents exceeds the workspace's net purchases.`);
      const free = toInt(row.clawback);
      if (!row.booked) {
        throw new CreditsConflict(
          `Only ${free} of the ${credits} credits asked are neither spent nor held; nothing was refunded. Ask for partial to take back those ${free} and book ${toInt(row.usd_cents)} of the ${usdCents} cents.`,
        );
      }
      return { ...(await requireUsage(workspaceId)), refund: { usdCents: toInt(row.usd_cents), usdCentsAsked: usdCents, creditsAsked: credits, creditsTakenBack: free } };
    },

    async setSpendingPaused(workspaceId, paused) {
      await requireUsage(workspaceId);
      await run(db, bind(sql.SET_SPENDING_PAUSED, { workspaceId, paused, ...times(clock()) }));
      return requireUsage(workspaceId);
    },

    async ledger(workspaceId, { limit = 100 } = {}) {
      if (!UUID.test(workspaceId)) return [];
      await run(db, bind(sql.FOLD, { workspaceId, foldAtLeast: 1, ...times(clock()) }));
      const rows = await run<Record<string, unknown>>(db, bind(sql.LIST_LEDGER, { workspaceId, limit }));
      return rows.map((row) => ({
        id: toInt(row.id),
        kind: row.kind as LedgerKind,
        credits: toInt(row.credits),
        freeCredits: toInt(row.free_credits),
        boughtCredits: toInt(row.bought_credits),
        usdCents: toInt(row.usd_cents),
        reservationId: (row.reservation_id as string | null) ?? null,
        note: (row.note as string | null) ?? null,
        createdAt: new Date(row.created_at as string).toISOString(),
      }));
    },

    async sweepExpiredReservations() {
      const [row] = await run<{ swept: unknown }>(db, bind(sql.SWEEP_RESERVATIONS, {}));
      return toInt(row?.swept);
    },
  };
}

function assertAmounts(usdCents: number, credits: number): void {
  if (!Number.isInteger(usdCents) || usdCents < 0 || !Number.isInteger(credits) || credits < 0 || usdCents + credits === 0) {
    throw new RangeError('usdCents and credits must be integers ≥ 0, not both 0.');
  }
}
