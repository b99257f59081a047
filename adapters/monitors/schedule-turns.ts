import { ResourceError } from '../db/resource-error.ts';
import type { SqlDb, SqlRunner } from '../db/sql.ts';
import { oneAtATimePerKey } from './one-at-a-time.ts';

/**
 * A monitor's schedule changes one at a time: each change (PATCH of schedule or status, delete, housekeeping's repair,
 * a create whose job store is outside the database) takes the monitor's turn, reads its row inside it and leaves the
 * schedule that row asks for, so no two interleave.
 */
export interface ScheduleTurns {
  /**
   * Runs `work` in the monitor's turn. `db` is the turn's transaction where the turn is shared between instances
   * (statements and `db.transaction` run inside it, committed when the turn ends), else the database itself.
   */
  take<T>(monitorId: string, work: (db: SqlDb) => Promise<T>): Promise<T>;
}

/**
 * Bounds of a shared turn, which holds one connection of the main pool (10) while it waits on the job store.
 * - `concurrent`: turns of different monitors open at once per instance; the rest queue in the process holding no
 *   connection, so a slow job store holds at most this many connections and requests keep the other eight.
 * - `lockTimeoutMs`: how long a turn waits for another instance's turn on the same monitor (which lasts a few job
 *   store calls, each milliseconds when the store is healthy) before giving up rather than holding its connection.
 * - `idleMs`: how long the turn's transaction may sit idle, awaiting the job store, before PostgreSQL ends its session
 *   (idle_in_transaction_session_timeout): a job store that stops answering holds the lock and the connection no
 *   longer than this. The ended session's connection leaves the pool (`sqlDbFromOrm`), and the change fails as the
 *   database unavailable (503).
 */
export const SCHEDULE_TURN_RULES = { concurrent: 2, lockTimeoutMs: 10_000, idleMs: 10_000 };

const LOCK_NOT_AVAILABLE = '55P03';

function isLockTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown }).code ?? (error as { cause?: { code?: unknown } }).cause?.code;
  return code === LOCK_NOT_AVAILABLE || /lock timeout/i.test(String((error as Error).message));
}

/** Runs at most `limit` works at once; the others wait, in order, for a place. */
function semaphore(limit: number) {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((enter) => waiting.push(enter));
    else running++;
    try {
      return await work();
    } finally {
      // The place passes straight to the next waiter, so a newcomer cannot take it in between.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/**
 * `shared`: the turn is a transaction holding the monitor's advisory lock, so instances on one PostgreSQL take turns
 * too. Not shared (PGlite, one owner process): an open transaction there would also take in the job store's
 * statements, which reach the same single session through its socket, so the turn stays in this process.
 * Either way a process queues its own changes of a monitor first, so one monitor's waiting changes hold at most one
 * pool connection per instance; shared turns of different monitors are further capped by `rules.concurrent`.
 */
export function createScheduleTurns(db: SqlDb, options: { shared: boolean; rules?: typeof SCHEDULE_TURN_RULES }): ScheduleTurns {
  const rules = options.rules ?? SCHEDULE_TURN_RULES;
  const inProcess = oneAtATimePerKey();
  const open = semaphore(rules.concurrent);
  const inTransaction = (tx: SqlRunner): SqlDb => ({ all: (sql, params) => tx.all(sql, params), transaction: (work) => work(tx) });

  const sharedTurn = async <T>(monitorId: string, work: (db: SqlDb) => Promise<T>): Promise<T> => {
    try {
      return await db.transaction(async (tx) => {
        // First statement of the transaction: the row read again in the turn must see what committed before the lock.
        await tx.all(`set transaction isolation level read committed`);
        // SET LOCAL, with the bounds as parameters.
        await tx.all(`select set_config('lock_timeout', ?, true), set_config('idle_in_transaction_session_timeout', ?, true)`, [
          `${rules.lockTimeoutMs}ms`,
          `${rules.idleMs}ms`,
        ]);
        await tx.all(`select pg_advisory_xact_lock(hashtext('monitor-schedule:' || ?))`, [monitorId]);
        return work(inTransaction(tx));
      });
    } catch (error) {
      if (!isLockTimeout(error)) throw error;
      throw new ResourceError('state', `The monitor's schedule could not be brought up to date in time (another change of this monitor held it too long); nothing of this turn was saved: send the request again, it applies the monitor as it then stands.`, {
        reason: 'schedule_busy',
      }, 1);
    }
  };

  return {
    take: (monitorId, work) => inProcess(monitorId, () => (options.shared ? open(() => sharedTurn(monitorId, work)) : work(db))),
  };
}
