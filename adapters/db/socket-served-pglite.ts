import type { PGlite } from '@electric-sql/pglite';

/** Wire-protocol message types (their first byte) of the extended query protocol, which a Sync ('S') ends. */
const EXTENDED = new Set(['P', 'B', 'D', 'E', 'C', 'H'].map((type) => type.charCodeAt(0)));
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);

/**
 * PGlite as the job store's socket server (pglite-socket) is to see it. PGlite has one session, and the server runs
 * each wire message under PGlite's query lock alone, so:
 * - a statement sent while a service transaction is open ran inside that transaction and was rolled back with it.
 *   Here the lock taken first is PGlite's transaction lock, as the service's own statements outside a transaction
 *   take. No deadlock: no service transaction awaits the job store on PGlite (turns are in-process there, and a
 *   monitor's delete removes its schedule by a statement of its own transaction).
 * - a parameterised statement is several messages (Parse, Bind, Describe, Execute, then Sync), and a statement of the
 *   service or of another client between them replaced the unnamed statement the Bind was meant for ("bind message
 *   supplies 14 parameters, but prepared statement "" requires 5"). Here the locks are held from a client's first
 *   such message to its Sync, and `isInTransaction` says so meanwhile: the server then takes that client's messages
 *   only (it looks for the last client's next message while one is open).
 *
 * Between statements `isInTransaction` answers false: the job store opens no transaction (its tables are the service's
 * migrations, so it never runs its schema transaction); answering PGlite's own state would mean the service's
 * transaction, which a statement waits out anyway, and made the server stop taking statements while one was open.
 */
export function socketServedPglite(pglite: PGlite): PGlite {
  /** Ends the hold on PGlite's locks; set while a client's extended-protocol message sequence is open. */
  let release: (() => void) | undefined;
  let sequenceOpen = false;
  const hold = () =>
    new Promise<void>((held, failed) => {
      pglite
        ._runExclusiveTransaction(() => pglite.runExclusive(() => new Promise<void>((done) => ((release = done), held()))))
        .catch(failed);
    });
  const letGo = () => {
    release?.();
    release = undefined;
  };
  const served: Pick<PGlite, 'waitReady' | 'runExclusive' | 'execProtocolRawStream' | 'isInTransaction' | 'exec'> = {
    waitReady: pglite.waitReady,
    runExclusive: async (work) => {
      if (!release) await hold();
      try {
        return await work();
      } finally {
        if (!sequenceOpen) letGo();
      }
    },
    execProtocolRawStream: (message, options) => {
      sequenceOpen = EXTENDED.has(message[0]!);
      return pglite.execProtocolRawStream(message, options);
    },
    isInTransaction: () => sequenceOpen,
    // The server's clean-up when a client leaves with a sequence open (its `ROLLBACK`): the sequence is ended first.
    exec: async (query, options) => {
      if (sequenceOpen) {
        sequenceOpen = false;
        await pglite.execProtocolRawStream(SYNC, { onRawData: () => undefined });
        letGo();
      }
      return pglite.exec(query, options);
    },
  };
  return served as PGlite;
}
