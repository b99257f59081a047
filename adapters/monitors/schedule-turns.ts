import type { SqlDb, SqlRunner } from '../db/sql.ts';

/**
 * A monitor's schedule changes one at a time: each change (create, PATCH of schedule or status, delete) takes the
 * monitor's turn, reads its row inside it and leaves the schedule that row asks for, so no two interleave.
 */
export interface ScheduleTurns {
  /**
   * Runs `work` in the monitor's turn. `db` is the turn's transaction where the turn is shared between instances
   * (statements and `db.transaction` run inside it, committed when the turn ends), else the database itself.
   */
  take<T>(monitorId: string, work: (db: SqlDb) => Promise<T>): Promise<T>;
}

/**
 * `shared`: the turn is a transaction holding the monitor's advisory lock, so instances on one PostgreSQL take turns
 * too. Not shared (PGlite, one owner process): an open transaction there would also take in the job store's
 * statements, which reach the same single session through its socket, so the turn stays in this process.
 * Either way a process queues its own changes of a monitor first, so one monitor's waiting changes hold at most one
 * pool connection per instance.
 */
export function createScheduleTurns(db: SqlDb, options: { shared: boolean }): ScheduleTurns {
  const queued = new Map<string, Promise<unknown>>();
  const inProcess = <T>(monitorId: string, work: () => Promise<T>): Promise<T> => {
    const next = (queued.get(monitorId) ?? Promise.resolve()).catch(() => undefined).then(work);
    queued.set(monitorId, next);
    const forget = () => {
      if (queued.get(monitorId) === next) queued.delete(monitorId);
    };
    next.then(forget, forget);
    return next;
  };
  const inTransaction = (tx: SqlRunner): SqlDb => ({ all: (sql, params) => tx.all(sql, params), transaction: (work) => work(tx) });

  return {
    take: (monitorId, work) =>
      inProcess(monitorId, () =>
        options.shared
          ? db.transaction(async (tx) => {
              await tx.all(`select pg_advisory_xact_lock(hashtext('monitor-schedule:' || ?))`, [monitorId]);
              return work(inTransaction(tx));
            })
          : work(db),
      ),
  };
}
