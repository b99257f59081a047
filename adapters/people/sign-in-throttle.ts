import type { SqlDb } from '../db/sql.ts';

/**
 * Failed sign-ins counted per email and per client address, and sign-up attempts per address, in fixed windows, in the
 * database so that every instance counts the same attempts. A key over its limit is refused until its window ends, before any password
 * is checked (so a flood of guesses costs no scrypt time either).
 */
export const THROTTLE_WINDOW_MS = 15 * 60_000;
/** Guesses at one account: enough for typos, far too few for a dictionary. */
export const FAILURES_PER_EMAIL = 5;
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
  return [{ key: `signup:${address}`, limit: SIGN_UPS_PER_ADDRESS }];
}

export interface ThrottleKey {
  key: string;
  limit: number;
}

export function throttleKeys(email: string, address: string | undefined): ThrottleKey[] {
  const keys = [{ key: `email:${email}`, limit: FAILURES_PER_EMAIL }];
  if (address) keys.push({ key: `address:${address}`, limit: FAILURES_PER_ADDRESS });
  return keys;
}

interface Row {
  key: string;
  failures: number;
  window_ms: number;
}

export interface SignInThrottle {
  /** Seconds until the first refused key's window ends, or 0 when every key may try. */
  retryAfterSeconds(keys: readonly ThrottleKey[], now: Date): Promise<number>;
  /** Counts one attempt (a failed sign-in, a sign-up) against every key. */
  record(keys: readonly ThrottleKey[], now: Date): Promise<void>;
  /** A successful sign-in forgets the account's failures (not the address's: it may be guessing at others). */
  clear(key: string): Promise<void>;
  /** Deletes windows that have ended. */
  sweep(now: Date): Promise<number>;
}

export function createSignInThrottle(db: SqlDb): SignInThrottle {
  return {
    async retryAfterSeconds(keys, now) {
      const rows = await db.all<Row>(
        `select "key", "failures", (extract(epoch from "window_started_at") * 1000)::float8 as "window_ms"
         from "sign_in_throttle" where "key" in (${keys.map(() => '?').join(', ')})`,
        keys.map((entry) => entry.key),
      );
      let wait = 0;
      for (const row of rows) {
        const limit = keys.find((entry) => entry.key === row.key)?.limit ?? Infinity;
        const endsMs = row.window_ms + THROTTLE_WINDOW_MS;
        if (row.failures >= limit && endsMs > now.getTime()) wait = Math.max(wait, Math.ceil((endsMs - now.getTime()) / 1000));
      }
      return wait;
    },

    async record(keys, now) {
      for (const { key } of keys) {
        // A window that has ended starts again at this failure.
        await db.all(
          `insert into "sign_in_throttle" ("key", "failures", "window_started_at") values (?, 1, ?::timestamptz)
           on conflict ("key") do update set
             "failures" = case when "sign_in_throttle"."window_started_at" + ?::interval <= excluded."window_started_at" then 1 else "sign_in_throttle"."failures" + 1 end,
             "window_started_at" = case when "sign_in_throttle"."window_started_at" + ?::interval <= excluded."window_started_at" then excluded."window_started_at" else "sign_in_throttle"."window_started_at" end`,
          [key, now.toISOString(), `${THROTTLE_WINDOW_MS} milliseconds`, `${THROTTLE_WINDOW_MS} milliseconds`],
        );
      }
    },

    async clear(key) {
      await db.all(`delete from "sign_in_throttle" where "key" = ?`, [key]);
    },

    async sweep(now) {
      const rows = await db.all(`delete from "sign_in_throttle" where "window_started_at" + ?::interval <= ?::timestamptz returning 1`, [
        `${THROTTLE_WINDOW_MS} milliseconds`,
        now.toISOString(),
      ]);
      return rows.length;
    },
  };
}
