import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import { logger } from '../logging/logger.ts';
import { bind, run, toInt, type SqlDb } from '../db/sql.ts';
import { monthStart, systemClock, type Clock } from './billing-month.ts';
import { CreditsRefusal } from './credits-refusal.ts';
import { FOLD_BATCH, type CreditsService, type Reservation } from './credits-service.ts';
import { createKnownBalances } from './known-balances.ts';
import * as sql from './lease-statements.ts';

/**
 * How leases are sized and kept (docs/billing.md, "Leases"). A lease grows towards 1/divisor of the credits no one
 * else holds, at most `cap`; below `min` there is no lease and calls are admitted one by one in the database.
 */
export const LEASE_RULES = {
  divisor: 4,
  cap: 10_000,
  min: 250,
  /** Lifetime of a lease after each sync, by the database's clock. */
  ttlMs: 10_000,
  /** Local admissions stop this long before the database could see the lease expire (sync answered late, say). */
  marginMs: 2_500,
  /** Each instance books its charges, hands back or grows its leases this often when there is anything to do. */
  syncEveryMs: 50,
  /** A lease with nothing to book is still renewed (and hears a recall) this often. */
  keepAliveMs: 250,
  /** A lease unused this long is handed back whole. */
  idleMs: 2_000,
  /** A lease's target older than this is asked again before a call skips the lease for it. */
  recheckMs: 1_000,
  /** How long reads and operator actions wait for the other instances' syncs. */
  waitMs: 1_000,
  pollMs: 10,
} as const;

export type LeaseRules = { [K in keyof typeof LEASE_RULES]: number };

/** A billed call admitted on this instance's lease (`lease`) or held in the database (`reservation`). */
export interface LeasedAdmission {
  readonly id: string;
  readonly workspaceId: string;
  readonly credits: number;
  readonly lease?: LeaseState;
  readonly reservation?: Reservation;
}

export interface CreditLeases {
  /** As `CreditsService.admit`: on this instance's lease when it covers the hold, else in the database. */
  admit(workspaceId: string, request: { minimumCredits: number; reserveCredits: number }): Promise<LeasedAdmission>;
  extend(admission: LeasedAdmission, extra: number): Promise<LeasedAdmission>;
  settle(admission: LeasedAdmission, credits: number): Promise<{ charged: number; remaining: number }>;
  release(admission: LeasedAdmission): Promise<{ remaining: number }>;
  /**
   * The balance as this instance knows it: the database's as its last settlement, sync or read answered it (reused
   * within the bounds of known-balances.ts), less what it charged since that is not booked yet.
   */
  remaining(workspaceId: string): Promise<number>;
  /** The same figure from what this instance last learned, however old, with no statement; undefined if nothing. */
  lastKnownRemaining(workspaceId: string): number | undefined;
  /** A purchase or a refund moved the balance: the next call reads it. */
  forget(workspaceId: string): void;
  /** Books this instance's charges now, and waits (bounded) until every other live lease has synced since. */
  exactBooks(workspaceId: string): Promise<void>;
  /** Hands this instance's unused slice back and has the others do the same before it resolves (bounded wait). */
  recallAll(workspaceId: string): Promise<void>;
  /** Runs `work` while no lease of the workspace may grow, after every unused slice was handed back. */
  frozen<T>(workspaceId: string, work: () => Promise<T>): Promise<T>;
  /**
   * The database was lost (its change feed's connection dropped): no call is admitted from memory until a sync
   * reaches it again, so billed calls answer 503 as free ones do instead of running up unbooked charges.
   */
  suspend(): void;
  /** Books and hands back every lease of this instance and stops syncing. */
  close(): Promise<void>;
}

export interface CreditLeasesOptions {
  db: SqlDb;
  credits: CreditsService;
  clock?: Clock;
  rules?: Partial<LeaseRules>;
}

/**
 * What a sync books as one pending charge: the calls settled on the lease since the last sync, in one billing
 * month (docs/billing.md, "Leases"). Sealed once a sync carries it, so a retry resends exactly what it sent.
 */
interface Charge {
  id: string;
  credits: number;
  /** The settlement time of its first call. */
  at: string;
  month: number;
  sealed: boolean;
}

/** This instance's side of one workspace's lease. Every figure is in credits. */
interface LeaseState {
  readonly workspaceId: string;
  readonly leaseId: string;
  /** The sequence number of the last sync sent. */
  seq: number;
  /** The lease's size as the database last answered. */
  granted: number;
  /** Holds of this instance's calls in flight on it. */
  held: number;
  /** Settled and not yet booked by a sync, in settlement order; `charged` is their sum. */
  charges: Charge[];
  charged: number;
  /** Set aside for a sync under way, or for one whose answer was lost: never admitted again. */
  givingBack: number;
  /** A sync whose answer was lost: its number, how many charges and credits it carried. */
  unconfirmed: { seq: number; charges: number; givingBack: number } | undefined;
  /** performance.now() after which nothing more is admitted on the lease. */
  validUntil: number;
  target: number | undefined;
  /** The account's balance after the last sync (the charges it booked included). */
  balance: number | undefined;
  checkedAt: number;
  lastUsed: number;
  drain: boolean;
  running: Promise<void> | undefined;
  queued: Promise<void> | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NO_LEASE = '00000000-0000-0000-0000-000000000000';

const freeOf = (state: LeaseState) => state.granted - state.held - state.charged - state.givingBack;
const remainingOf = (state: LeaseState) => Math.max(0, (state.balance ?? 0) - state.charged);

export function createCreditLeases(options: CreditLeasesOptions): CreditLeases {
  const { db, credits } = options;
  const clock = options.clock ?? systemClock;
  const rules: LeaseRules = { ...LEASE_RULES, ...options.rules };
  const instance = `${hostname()}:${process.pid}`;
  const states = new Map<string, LeaseState>();
  const finished = new WeakSet<LeasedAdmission>();
  const known = createKnownBalances(async (workspaceId) => (await credits.usage(workspaceId))?.balance ?? 0, () => clock().getTime());
  let closing = false;
  let holds = 0;

  const timer = setInterval(tick, rules.syncEveryMs);
  timer.unref();

  function stateOf(workspaceId: string): LeaseState {
    let state = states.get(workspaceId);
    if (!state) {
      state = {
        workspaceId, leaseId: randomUUID(), seq: 0, granted: 0, held: 0, charges: [], charged: 0, givingBack: 0,
        unconfirmed: undefined, validUntil: 0, target: undefined, balance: undefined, checkedAt: -Infinity,
        lastUsed: performance.now(), drain: false, running: undefined, queued: undefined,
      };
      states.set(workspaceId, state);
    }
    return state;
  }

  /** Runs one sync after the one under way; callers arriving meanwhile share the queued one. */
  function sync(state: LeaseState, drain = false): Promise<void> {
    if (drain) state.drain = true;
    if (state.queued) return state.queued;
    const previous = state.running;
    const slot: { promise?: Promise<void> } = {};
    slot.promise = (async () => {
      await previous?.catch(() => undefined);
      state.queued = undefined;
      state.running = slot.promise;
      try {
        // A lost answer, a renewed free grant or a recall each need one more round; never more than three.
        for (let round = 0; round < 3 && (await syncOnce(state)); round++);
      } finally {
        if (state.running === slot.promise) state.running = undefined;
      }
    })();
    state.queued = slot.promise;
    return slot.promise;
  }

  /** One round trip; true when another is needed at once. */
  async function syncOnce(state: LeaseState): Promise<boolean> {
    // The retry of a sync whose answer was lost resends exactly what it carried, under the same number: the
    // database applies that number at most once, and an answer "already applied" then says what was booked.
    const retry = state.unconfirmed;
    const drain = !retry && (state.drain || closing);
    if (!retry) state.drain = false;
    const seq = retry?.seq ?? state.seq + 1;
    state.seq = seq;
    const free = Math.max(0, freeOf(state));
    const excess = state.target !== undefined && state.granted > state.target ? Math.min(free, state.granted - state.target) : 0;
    const extra = retry ? 0 : drain ? free : excess;
    state.givingBack += extra;
    const sent = retry?.charges ?? state.charges.length;
    const batch = state.charges.slice(0, sent);
    for (const charge of batch) charge.sealed = true;
    const sentCredits = batch.reduce((sum, charge) => sum + charge.credits, 0);
    const givingBack = state.givingBack;
    const started = performance.now();
    const now = clock();
    let row: Record<string, unknown> | undefined;
    const change = known.changing(state.workspaceId);
    try {
      [row] = await run<Record<string, unknown>>(db, bind(sql.SYNC, {
        leaseId: state.leaseId, workspaceId: state.workspaceId, instance, seq, charges: JSON.stringify(batch.map(({ id, credits, at }) => ({ id, credits, at }))),
        giveBack: givingBack, drain, inFlight: state.held, ttlMs: rules.ttlMs, cap: rules.cap, min: rules.min,
        divisor: rules.divisor, now: now.toISOString(), periodStart: monthStart(now).toISOString(), foldAtLeast: FOLD_BATCH,
      }));
    } catch (error) {
      known.changed(change, undefined);
      state.unconfirmed ??= { seq, charges: sent, givingBack };
      throw error;
    }
    // The balance after this sync's charges, which leave `state.charged` in the same step below.
    known.changed(change, row ? toInt(row.balance) : undefined);
    if (!row) {
      // No account yet (the workspace's first billed call): open it, then sync again.
      state.givingBack -= extra;
      await credits.usage(state.workspaceId);
      return true;
    }
    state.granted = toInt(row.credits);
    state.balance = toInt(row.balance);
    if (!row.applied && !retry) throw new Error(`credit lease ${state.leaseId}: sync ${seq} was already applied, and none was sent twice.`);
    // Applied now, or (a retry) applied the first time: either way what this batch carried is booked.
    state.unconfirmed = undefined;
    state.charges.splice(0, sent);
    state.charged -= sentCredits;
    state.givingBack -= givingBack;
    if (retry) return true;
    state.balance = Math.max(0, state.balance);
    state.target = toInt(row.target);
    state.checkedAt = started;
    state.validUntil = started + rules.ttlMs - rules.marginMs;
    const booked = toInt(row.charged);
    if (booked !== sentCredits) {
      logger.error({ workspaceId: state.workspaceId, sent: sentCredits, booked }, 'lease expired before its charges were booked: only what no one held was charged');
    }
    if (row.stale) {
      // A new month: renew the free grant, then sync again to grow the lease from it.
      await credits.usage(state.workspaceId, now);
      return !drain;
    }
    if (row.recalled && !drain) {
      state.drain = true;
      return true;
    }
    return false;
  }

  function tick(): void {
    const now = performance.now();
    for (const [workspaceId, state] of states) {
      if (state.running || state.queued) continue;
      const idle = state.held === 0 && now - state.lastUsed > rules.idleMs;
      if (state.granted === 0 && state.charges.length === 0 && state.givingBack === 0 && !state.unconfirmed) {
        if (idle) states.delete(workspaceId);
        continue;
      }
      const due = idle || state.charges.length > 0 || state.unconfirmed !== undefined || state.drain
        || freeOf(state) < (state.target ?? 0) / 2 || now - state.checkedAt >= rules.keepAliveMs;
      if (due) sync(state, idle).catch((error: unknown) => logger.error({ err: error, workspaceId }, 'credit lease sync failed'));
    }
  }

  function take(state: LeaseState, hold: number): LeasedAdmission | undefined {
    if (closing || performance.now() >= state.validUntil || freeOf(state) < hold) return undefined;
    state.held += hold;
    // A hold on the lease is no database row: its id only names it in an error, so a count serves (a random UUID per call cost ~0.5 KB).
    return { id: `${state.leaseId}:${++holds}`, workspaceId: state.workspaceId, credits: hold, lease: state };
  }

  const held = (reservation: Reservation): LeasedAdmission => ({ id: reservation.id, workspaceId: reservation.workspaceId, credits: reservation.credits, reservation });

  /**
   * Until every other live lease with credits is no longer recalled (or has synced since `since`, the database's
   * time of the first look when null), bounded by `waitMs`.
   */
  async function waitForOthers(workspaceId: string, exceptLease: string, what: 'recalled' | 'behind', since: string | null): Promise<void> {
    for (let waited = 0; waited < rules.waitMs; waited += rules.pollMs) {
      const [row] = await run<{ at: unknown; recalled: unknown; behind: unknown }>(db, bind(sql.OUTSTANDING, { workspaceId, exceptLease, since }));
      if (toInt(row?.[what]) === 0) return;
      since ??= new Date(row!.at as string).toISOString();
      await new Promise((resolve) => setTimeout(resolve, rules.pollMs));
    }
    logger.warn({ workspaceId, waitedFor: what }, 'another instance did not sync its credit lease in time');
  }

  async function recallOthers(workspaceId: string, exceptLease: string): Promise<boolean> {
    const [row] = await run<{ recalled: unknown }>(db, bind(sql.RECALL, { workspaceId, exceptLease }));
    if (toInt(row?.recalled) === 0) return false;
    await waitForOthers(workspaceId, exceptLease, 'recalled', null);
    return true;
  }

  async function recallAll(workspaceId: string): Promise<void> {
    const ownLease = states.get(workspaceId)?.leaseId ?? NO_LEASE;
    await Promise.all([drainOwn(workspaceId), recallOthers(workspaceId, ownLease)]);
  }

  async function drainOwn(workspaceId: string): Promise<boolean> {
    const state = states.get(workspaceId);
    if (!state || state.granted === 0) return false;
    await sync(state, true);
    return true;
  }

  /**
   * A database admission or extension refused as credits_held: the unused slices of this instance and of the
   * others are handed back first, and it is asked once more, so a slice held by a lease never refuses a call the
   * account's credits cover.
   */
  async function afterRecall<T>(workspaceId: string, attempt: () => Promise<T>): Promise<T> {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof CreditsRefusal) || error.code !== 'credits_held') throw error;
      const ownLease = states.get(workspaceId)?.leaseId ?? NO_LEASE;
      const [own, others] = await Promise.all([drainOwn(workspaceId), recallOthers(workspaceId, ownLease)]);
      if (!own && !others) throw error;
      return attempt();
    }
  }

  /** In the database, for a hold the lease cannot cover. */
  function admitDirect(workspaceId: string, request: { minimumCredits: number; reserveCredits: number }): Promise<LeasedAdmission> {
    return afterRecall(workspaceId, async () => held(await credits.admit(workspaceId, request)));
  }

  function finish(admission: LeasedAdmission): void {
    if (finished.has(admission)) throw new Error(`Reservation ${admission.id} was already settled or released.`);
    finished.add(admission);
  }

  const lessUnbooked = (workspaceId: string, balance: number) => Math.max(0, balance - (states.get(workspaceId)?.charged ?? 0));

  async function remaining(workspaceId: string): Promise<number> {
    return lessUnbooked(workspaceId, await known.balance(workspaceId));
  }

  /** A settlement in the database; its answer is what the account holds after it. */
  async function settleDirect(reservation: Reservation, amount: number): Promise<{ charged: number; remaining: number }> {
    const change = known.changing(reservation.workspaceId);
    let settled: { charged: number; remaining: number } | undefined;
    try {
      settled = await credits.settle(reservation, amount);
      return settled;
    } finally {
      known.changed(change, settled?.remaining);
    }
  }

  return {
    async admit(workspaceId, request) {
      const { minimumCredits, reserveCredits } = request;
      if (!Number.isInteger(minimumCredits) || minimumCredits < 1 || !Number.isInteger(reserveCredits)) {
        throw new RangeError('admit needs an integer minimumCredits ≥ 1 and an integer reserveCredits.');
      }
      if (!UUID.test(workspaceId) || closing) return admitDirect(workspaceId, request);
      const hold = Math.max(reserveCredits, minimumCredits);
      const state = stateOf(workspaceId);
      state.lastUsed = performance.now();
      const local = take(state, hold);
      if (local) return local;
      // Renew before giving up on the lease, unless it recently said it cannot grow to this hold.
      if (state.target === undefined || hold <= state.target || performance.now() - state.checkedAt > rules.recheckMs) {
        await sync(state).catch((error: unknown) => logger.error({ err: error, workspaceId }, 'credit lease sync failed'));
        const renewed = take(state, hold);
        if (renewed) return renewed;
      }
      return admitDirect(workspaceId, request);
    },

    async extend(admission, extra) {
      if (!Number.isInteger(extra) || extra < 1) throw new RangeError('extend needs an integer extra ≥ 1.');
      if (finished.has(admission)) throw new Error(`Reservation ${admission.id} was already settled or released.`);
      if (!admission.lease) {
        const grown = await afterRecall(admission.workspaceId, () => credits.extend(admission.reservation!, extra));
        finish(admission);
        return held(grown);
      }
      const state = admission.lease;
      const grow = (): LeasedAdmission | undefined => {
        if (performance.now() >= state.validUntil || freeOf(state) < extra) return undefined;
        state.held += extra;
        finish(admission);
        return { ...admission, credits: admission.credits + extra };
      };
      const grown = grow() ?? (await sync(state).catch(() => undefined), grow());
      if (grown) return grown;
      // The lease cannot cover the price: the call takes a hold of its own for all of it, or is refused as
      // extend refuses (what it can use counts its own hold), keeping its hold on the lease until released.
      const price = admission.credits + extra;
      let moved: LeasedAdmission;
      try {
        moved = await admitDirect(state.workspaceId, { minimumCredits: price, reserveCredits: price });
      } catch (error) {
        if (!(error instanceof CreditsRefusal)) throw error;
        throw new CreditsRefusal(error.code, { balance: error.balance, available: Math.min(error.balance, error.available + admission.credits), price });
      }
      finish(admission);
      state.held -= admission.credits;
      return moved;
    },

    async settle(admission, amount) {
      if (!Number.isInteger(amount) || amount < 0) throw new RangeError('settle needs an integer credits ≥ 0.');
      if (!admission.lease) {
        finish(admission);
        const settled = await settleDirect(admission.reservation!, amount);
        // The database's balance does not have this instance's charges not yet booked.
        return { ...settled, remaining: Math.max(0, settled.remaining - (states.get(admission.workspaceId)?.charged ?? 0)) };
      }
      finish(admission);
      const state = admission.lease;
      const charge = Math.min(amount, admission.credits);
      state.held -= admission.credits;
      state.lastUsed = performance.now();
      if (charge > 0) {
        // Added to the charge the next sync books unless a sync already carries that one or the month turned.
        const now = clock();
        const month = monthStart(now).getTime();
        const open = state.charges.at(-1);
        if (open && !open.sealed && open.month === month) open.credits += charge;
        else state.charges.push({ id: randomUUID(), credits: charge, at: now.toISOString(), month, sealed: false });
        state.charged += charge;
      }
      return { charged: charge, remaining: remainingOf(state) };
    },

    async release(admission) {
      finish(admission);
      if (!admission.lease) {
        await credits.release(admission.reservation!);
        return { remaining: await remaining(admission.workspaceId) };
      }
      admission.lease.held -= admission.credits;
      return { remaining: remainingOf(admission.lease) };
    },

    remaining,
    lastKnownRemaining(workspaceId) {
      const balance = known.lastKnown(workspaceId);
      return balance === undefined ? undefined : lessUnbooked(workspaceId, balance);
    },
    forget: known.forget,

    async exactBooks(workspaceId) {
      const state = states.get(workspaceId);
      if (state && (state.granted > 0 || state.charges.length > 0 || state.unconfirmed)) await sync(state);
      await waitForOthers(workspaceId, state?.leaseId ?? NO_LEASE, 'behind', null);
    },

    recallAll,

    async frozen(workspaceId, work) {
      await run(db, bind(sql.FREEZE, { workspaceId, ms: rules.waitMs * 5 }));
      try {
        await recallAll(workspaceId);
        return await work();
      } finally {
        await run(db, bind(sql.UNFREEZE, { workspaceId }));
      }
    },

    suspend() {
      for (const state of states.values()) state.validUntil = 0;
    },

    async close() {
      closing = true;
      clearInterval(timer);
      await Promise.all(
        [...states.values()].map((state) =>
          sync(state, true).catch((error: unknown) => logger.error({ err: error, workspaceId: state.workspaceId }, 'credit lease not handed back')),
        ),
      );
    },
  };
}
