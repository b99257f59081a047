/**
 * How long a balance this instance learned answers a free call (docs/billing.md, "x-credits-remaining"): until
 * `refreshAfterMs` with no statement; then still at once, while one read refreshes it behind the call; past
 * `maxAgeMs` (an account idle that long) the call reads it again.
 */
export const KNOWN_BALANCE_RULES = { refreshAfterMs: 1_000, maxAgeMs: 5_000 } as const;

/** Accounts remembered per instance; past this the map starts again (it is only a memo). */
const MAX_ACCOUNTS = 100_000;

/** A statement of this instance that moves an account's balance (a settlement, a lease sync), while it runs. */
export interface BalanceChange {
  readonly workspaceId: string;
  readonly entry: Entry;
  readonly version: number;
  readonly alone: boolean;
  readonly sentAt: number;
}

interface Entry {
  /** The database's balance (this instance's charges not yet booked are not in it); undefined: not known. */
  balance: number | undefined;
  /** The clock when the statement that answered it was sent. */
  at: number;
  /** Bumped when a change of this instance starts or answers, and when the balance is forgotten. */
  version: number;
  /** Bumped when a change of this instance answers. */
  settled: number;
  changing: number;
  reading: { version: number; promise: Promise<number> } | undefined;
}

export interface KnownBalances {
  /** Called as a balance-moving statement is sent; pass the result to `changed` when it answers or fails. */
  changing(workspaceId: string): BalanceChange;
  /**
   * The change answered with the balance after it (undefined when it failed). It is kept only when no other change
   * of this instance overlapped it, which could have committed after its snapshot; otherwise the balance is forgotten.
   */
  changed(change: BalanceChange, balance: number | undefined): void;
  /** Something else moved the balance (a purchase, a refund): the next free call reads it. */
  forget(workspaceId: string): void;
  /** The database's balance as known within the bounds above, read when it is not. */
  balance(workspaceId: string): Promise<number>;
  /** The balance last learned, however old, without a statement; undefined when none is known. */
  lastKnown(workspaceId: string): number | undefined;
}

/**
 * The balance each account had when this instance last learned it, from its own settlements and lease syncs or
 * from a read. A read is kept only when none of this instance's changes started or answered while it ran, so the
 * memo never misses a charge of this instance: with its unbooked charges taken off, a free call's figure follows
 * this instance's own spending exactly, and lags other instances' by at most the bounds.
 */
export function createKnownBalances(read: (workspaceId: string) => Promise<number>, clock: () => number, rules = KNOWN_BALANCE_RULES): KnownBalances {
  const entries = new Map<string, Entry>();

  function entryOf(workspaceId: string): Entry {
    let entry = entries.get(workspaceId);
    if (!entry) {
      if (entries.size >= MAX_ACCOUNTS) entries.clear();
      entry = { balance: undefined, at: 0, version: 0, settled: 0, changing: 0, reading: undefined };
      entries.set(workspaceId, entry);
    }
    return entry;
  }

  /** One read at a time per account; a call may share it only if nothing changed since it was sent. */
  function readInto(workspaceId: string, entry: Entry): Promise<number> {
    if (entry.reading?.version === entry.version) return entry.reading.promise;
    const reading = { version: entry.version, promise: readAround(workspaceId, entry) };
    const done = () => {
      if (entry.reading === reading) entry.reading = undefined;
    };
    reading.promise.then(done, done);
    entry.reading = reading;
    return reading.promise;
  }

  /**
   * A read kept when no change of this instance started or answered while it ran. Otherwise its snapshot may predate
   * a charge the change booked (and took off the unbooked ones) or already count one still unbooked: it answers from
   * the entry a change that answered meanwhile left, else reads once more; a second overlapped read answers the entry
   * if known (it never misses a charge of this instance), else itself, as nothing better is known without waiting.
   */
  async function readAround(workspaceId: string, entry: Entry): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      const { version, settled } = entry;
      const alone = entry.changing === 0;
      const sentAt = clock();
      const balance = await read(workspaceId);
      if (alone && entry.version === version) return Object.assign(entry, { balance, at: sentAt }).balance;
      if (entry.settled !== settled && entry.balance !== undefined) return entry.balance;
      if (attempt === 2) return entry.balance ?? balance;
    }
  }

  function forget(workspaceId: string): void {
    const entry = entries.get(workspaceId);
    if (!entry) return;
    entry.balance = undefined;
    entry.version++;
  }

  return {
    changing(workspaceId) {
      const entry = entryOf(workspaceId);
      const alone = entry.changing === 0;
      entry.changing++;
      entry.version++;
      return { workspaceId, entry, version: entry.version, alone, sentAt: clock() };
    },

    changed(change, balance) {
      const { entry } = change;
      entry.changing--;
      entry.version++;
      entry.settled++;
      const overlapped = !change.alone || entry.version !== change.version + 1;
      entry.balance = balance === undefined || overlapped ? undefined : balance;
      entry.at = change.sentAt;
      // The memo started again while it ran: whatever was learned since may miss this change.
      if (entries.get(change.workspaceId) !== entry) forget(change.workspaceId);
    },

    forget,

    lastKnown: (workspaceId) => entries.get(workspaceId)?.balance,

    async balance(workspaceId) {
      const entry = entryOf(workspaceId);
      const age = clock() - entry.at;
      // A clock that went back makes the age negative: not trusted, read again.
      if (entry.balance === undefined || age < 0 || age >= rules.maxAgeMs) return readInto(workspaceId, entry);
      if (age >= rules.refreshAfterMs && entry.changing === 0) readInto(workspaceId, entry).catch(() => undefined);
      return entry.balance;
    },
  };
}
