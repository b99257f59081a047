import type { SqlDb } from '../db/sql.ts';
import { addressKey } from '../identity/address-key.ts';

/**
 * Failed sign-ins counted per email from each client address, per email from all and per address, and sign-up
 * attempts per address (an IPv6 one by its /64, address-key.ts), in fixed windows, in the database so that every
 * instance counts the same attempts. A key over its limit is refused until its window ends, before any password is
 * checked (so a flood of guesses costs no scrypt time either).
 */
export const THROTTLE_WINDOW_MS = 15 * 60_000;
/**
 * Guesses at one account from one address: enough for typos, far too few for a dictionary. Counted per address so
 * that guessing from elsewhere cannot lock the owner out (anyone could otherwise keep them out with a few requests
 * per window).
 */
export const FAILURES_PER_EMAIL_PER_ADDRESS = 5;
/**
 * Guesses at one account from all addresses together. Over it, an address with no failure at this account in its
 * window is still let through, once, while the account has spares left (SPARES_PER_EMAIL): the owner signing in from
 * their own address gets in while someone guesses.
 */
export const FAILURES_PER_EMAIL = 20;
/**
 * Attempts let through past FAILURES_PER_EMAIL, from all addresses together, per window: without a ceiling every
 * address is one more guess, and an IPv6 /48 holds 65,536 /64s (address-key.ts). Locking the owner out takes this
 * many fresh addresses on top of the 20 guesses, every window; a successful sign-in gives its spare back.
 */
export const SPARES_PER_EMAIL = 10;
/**
 * Guesses from a known device (a browser holding a live device cookie of the account, known-device.ts): counted per
 * device alone, not in the account's counts, so the owner's own browser still signs in while others guess.
 */
export const FAILURES_PER_DEVICE = 5;
/** One address trying many accounts (or many people behind one NAT): looser. */
export const FAILURES_PER_ADDRESS = 30;

/**
 * Sign-up attempts from one address, refused ones included: each account comes with a workspace and the monthly free
 * credits, so an unbounded sign-up rate would hand out free credits by the thousand, and each refusal for a taken
 * email tells that it has an account. A household or an office, typos included, still fits.
 */
export const SIGN_UPS_PER_ADDRESS = 10;

/** A sign-up refused because its address tried too many in the window. */
export class SignUpThrottled extends Error {
  readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    super('Too many sign-up attempts from this address; try again later.');
    this.name = 'SignUpThrottled';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export function signUpKeys(address: string): ThrottleKey[] {
  return [{ key: `signup:${addressKey(address)}`, limit: SIGN_UPS_PER_ADDRESS }];
}

export interface ThrottleKey {
  key: string;
  limit: number;
  /**
   * Over `limit`, the attempt still goes on when it is the first counted against `firstOf` in its window and, counted
   * against `ceiling` then, within that one's limit.
   */
  spare?: { firstOf: string; ceiling: { key: string; limit: number } };
}

/**
 * The keys a failed sign-in counts against, in the order every attempt locks them (so parallel attempts never
 * deadlock). An email that no account can have (longer than any account's) is not one: there is no account to guess
 * at, and a row per such email would only store what an attacker chose. Without an address, the account's count from
 * everywhere is held to the limit of one address, with no spare: nothing tells such attempts apart.
 */
export function throttleKeys(email: string | undefined, address: string | undefined): ThrottleKey[] {
  const from = address ? addressKey(address) : undefined;
  const keys: ThrottleKey[] = [];
  if (email !== undefined) {
    if (from === undefined) keys.push({ key: `email:${email}`, limit: FAILURES_PER_EMAIL_PER_ADDRESS });
    else {
      const fromHere = `email-from:${from} ${email}`;
      const spare = { firstOf: fromHere, ceiling: { key: `email-spares:${email}`, limit: SPARES_PER_EMAIL } };
      keys.push({ key: `email:${email}`, limit: FAILURES_PER_EMAIL, spare }, { key: fromHere, limit: FAILURES_PER_EMAIL_PER_ADDRESS });
    }
  }
  if (from !== undefined) keys.push({ key: `address:${from}`, limit: FAILURES_PER_ADDRESS });
  return keys;
}

/** The keys a sign-in from a known device counts against: the device's own, and the address's as any attempt. */
export function deviceThrottleKeys(device: string, address: string | undefined): ThrottleKey[] {
  const keys: ThrottleKey[] = [{ key: `device:${device}`, limit: FAILURES_PER_DEVICE }];
  if (address) keys.push({ key: `address:${addressKey(address)}`, limit: FAILURES_PER_ADDRESS });
  return keys;
}

interface Row {
  key: string;
  failures: number;
  window_ms: number;
}

/** An attempt counted against its keys: the window each count went into, to take it back in. */
export interface CountedAttempt {
  /** Seconds until the first key over its limit may try again, or 0 when the attempt may go on. */
  retryAfterSeconds: number;
  windows: ReadonlyArray<{ key: string; startedMs: number }>;
}

export interface SignInThrottle {
  /**
   * Counts one attempt (a sign-in, a sign-up) against every key and says whether it may go on, in one statement (and
   * a spare against its ceiling in a second): a separate check and count let parallel attempts all pass the check
   * before any was counted. A refused attempt is taken back at once, so being refused never counts.
   */
  attempt(keys: readonly ThrottleKey[], now: Date): Promise<CountedAttempt>;
  /** Takes an attempt back from `keys` (a successful sign-in is no failure), within the window it was counted in. */
  takeBack(attempt: CountedAttempt, keys: readonly string[]): Promise<void>;
  /**
   * Forgets a key's failures: a successful sign-in forgets its typos at the account from its address (not the
   * address's, which may be guessing at others, nor the account's from elsewhere).
   */
  clear(key: string): Promise<void>;
  /** Deletes windows that have ended. */
  sweep(now: Date): Promise<number>;
}

export function createSignInThrottle(db: SqlDb): SignInThrottle {
  const window = `${THROTTLE_WINDOW_MS} milliseconds`;
  // One attempt more against each key, in one statement. A window that has ended starts again at this attempt. Rows
  // are locked in the keys' order (throttleKeys), the same for every attempt, so parallel attempts never deadlock.
  const count = (keys: readonly { key: string }[], now: Date) => {
    const at = now.toISOString();
    return db.all<Row>(
      `insert into "sign_in_throttle" ("key", "failures", "window_started_at") values ${keys.map(() => '(?, 1, ?::timestamptz)').join(', ')}
       on conflict ("key") do update set
         "failures" = case when "sign_in_throttle"."window_started_at" + ?::interval <= excluded."window_started_at" then 1 else "sign_in_throttle"."failures" + 1 end,
         "window_started_at" = case when "sign_in_throttle"."window_started_at" + ?::interval <= excluded."window_started_at" then excluded."window_started_at" else "sign_in_throttle"."window_started_at" end
       returning "key", "failures", (extract(epoch from "window_started_at") * 1000)::float8 as "window_ms"`,
      [...keys.flatMap(({ key }) => [key, at]), window, window],
    );
  };
  const throttle: SignInThrottle = {
    async attempt(keys, now) {
      if (!keys.length) return { retryAfterSeconds: 0, windows: [] };
      const rows = await count(keys, now);
      const secondsLeft = (row: Row) => Math.ceil((row.window_ms + THROTTLE_WINDOW_MS - now.getTime()) / 1000);
      let wait = 0;
      for (const row of [...rows]) {
        const entry = keys.find(({ key }) => key === row.key);
        if (!entry || row.failures <= entry.limit) continue;
        const { spare } = entry;
        const first = rows.find(({ key }) => key === spare?.firstOf);
        // A spare is counted apart, only when one is taken: the account's ceiling then bounds them, parallel ones too.
        const [ceiling] = spare && first?.failures === 1 ? await count([spare.ceiling], now) : [];
        if (ceiling) rows.push(ceiling);
        if (ceiling && spare && ceiling.failures <= spare.ceiling.limit) continue;
        // Refused, it waits for whichever ends first: the account's window, or the one that decided against its spare
        // (the address's failures here, or the account's spares).
        const other = ceiling ?? first;
        wait = Math.max(wait, other ? Math.min(secondsLeft(row), secondsLeft(other)) : secondsLeft(row));
      }
      const counted = { retryAfterSeconds: wait, windows: rows.map((row) => ({ key: row.key, startedMs: row.window_ms })) };
      if (wait > 0) await throttle.takeBack(counted, counted.windows.map(({ key }) => key));
      return counted;
    },

    async takeBack({ windows }, keys) {
      // One statement per row, so no two take-backs lock the same rows in different orders. A row back at 0 counts
      // nothing and goes: a refused attempt leaves no row of its own (one per email tried, when an address is over).
      for (const { key, startedMs } of windows.filter((entry) => keys.includes(entry.key))) {
        const started = new Date(startedMs).toISOString();
        await db.all(`update "sign_in_throttle" set "failures" = "failures" - 1 where "key" = ? and "window_started_at" = ?::timestamptz and "failures" > 0`, [key, started]);
        await db.all(`delete from "sign_in_throttle" where "key" = ? and "failures" = 0`, [key]);
      }
    },

    async clear(key) {
      await db.all(`delete from "sign_in_throttle" where "key" = ?`, [key]);
    },

    async sweep(now) {
      const rows = await db.all(`delete from "sign_in_throttle" where "window_started_at" + ?::interval <= ?::timestamptz returning 1`, [window, now.toISOString()]);
      return rows.length;
    },
  };
  return throttle;
}
