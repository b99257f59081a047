import type { PGlite } from '@electric-sql/pglite';

/**
 * PGlite as the job store's socket server (pglite-socket) is to see it. The server runs each statement under PGlite's
 * query lock only, so one sent while a service transaction is open ran inside that transaction and was rolled back
 * with it. Here each statement first waits for PGlite's transaction lock, as the service's own statements outside a
 * transaction do. No deadlock: no service transaction awaits the job store on PGlite (turns are in-process there, and a
 * monitor's delete removes its schedule by a statement of its own transaction).
 *
 * `isInTransaction` answers false: the server asks it to keep one client's transaction to itself, and the job store
 * opens none (its tables are the service's migrations, so it never runs its schema transaction). Answering PGlite's
 * own state would mean the service's transaction, which a statement waits out anyway, and made the server stop taking
 * statements while one was open (it looked for the last client's next statement only).
 */
export function socketServedPglite(pglite: PGlite): PGlite {
  const served: Pick<PGlite, 'waitReady' | 'runExclusive' | 'execProtocolRawStream' | 'isInTransaction' | 'exec'> = {
    waitReady: pglite.waitReady,
    runExclusive: (work) => pglite._runExclusiveTransaction(() => pglite.runExclusive(work)),
    execProtocolRawStream: (message, options) => pglite.execProtocolRawStream(message, options),
    isInTransaction: () => false,
    exec: (query, options) => pglite.exec(query, options),
  };
  return served as PGlite;
}
