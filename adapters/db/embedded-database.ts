import { Worker } from 'node:worker_threads';
import type { Results, Transaction } from '@electric-sql/pglite';
import { logger } from '../logging/logger.ts';

/** What a statement may carry to the worker: functions (parsers, onNotice) cannot cross a thread. */
export interface StatementOptions {
  rowMode?: 'array' | 'object';
  /** Read by `COPY … FROM '/dev/blob'`. */
  blob?: Blob;
}

/** A message to the worker; `id` names the reply. `tx` runs the statement in that open transaction. */
export type Request = { id: number } & (
  | { op: 'query'; sql: string; params?: unknown[]; options?: StatementOptions; tx?: number }
  | { op: 'exec'; sql: string; tx?: number }
  | { op: 'begin' }
  | { op: 'end'; tx: number; commit: boolean }
  | { op: 'rollback'; tx: number }
  | { op: 'listen'; channel: string }
  | { op: 'unlisten'; channel: string }
  | { op: 'serve'; maxConnections: number }
  | { op: 'unserve'; server: number }
  | { op: 'close' }
);

/** A PostgreSQL error's fields (code, detail, constraint, …), as plain data. */
export type ErrorFields = { message: string } & Record<string, unknown>;

/** From the worker: a reply, a notification, or whether the database opened. */
export type Reply =
  | { id: number; result?: unknown; error?: ErrorFields }
  | { notify: string; payload: string }
  | { opened: true }
  | { failed: ErrorFields };

export interface EmbeddedDatabaseOptions {
  /** The PGlite cluster's folder. */
  dataDir: string;
}

/**
 * A worker gone without close() leaves the database unusable until the process restarts (nothing restarts the worker
 * alone), while /health would still say ok: the process ends, non-zero, so its supervisor starts it afresh.
 */
function exitProcess(gone: Error): void {
  logger.fatal({ err: gone }, 'the embedded database is gone: exiting so the process is restarted');
  process.exit(1);
}

/** What PGlite itself throws once closed; the service's callers already see this after shutdown. */
const CLOSED_MESSAGE = 'PGlite is closed';

/**
 * The embedded database (PGlite), run in a worker thread so its statements — the billing cadences', a migration's, a
 * monitor run's — never take the thread that serves HTTP. This side forwards each statement whole (one message there
 * and one back) and keeps PGlite's own interface for the ORM (`query`, `transaction`), the key-change feed (`listen`)
 * and the job store (`serveSocket`). Locks, parsing and the WAL stay in the worker with PGlite.
 */
export class EmbeddedDatabase {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  readonly #listeners = new Map<string, Set<(payload: string) => void>>();
  readonly #opened: Promise<void>;
  #nextId = 1;
  #ready = false;
  #closed = false;
  /** Set once the worker is gone: every call fails with it. */
  #gone: Error | undefined;

  /** `lost` is told of a worker that ended before close() began (other than by failing to open the database). */
  constructor(options: EmbeddedDatabaseOptions, lost: (gone: Error) => void = exitProcess) {
    this.#worker = new Worker(new URL('./embedded-database-worker.ts', import.meta.url), { workerData: options, name: 'embedded-database' });
    let openFailed = false;
    this.#opened = new Promise<void>((resolve, reject) => {
      this.#worker.on('message', (reply: Reply) => {
        if ('opened' in reply) {
          this.#ready = true;
          // From now on only calls in flight keep the process alive, as a socket would; an idle database does not.
          if (this.#pending.size === 0) this.#worker.unref();
          resolve();
        } else if ('failed' in reply) {
          openFailed = true;
          reject(asError(reply.failed));
        } else this.#onReply(reply);
      });
      this.#worker.on('error', (error) => this.#end(unavailable(`the embedded database's worker failed: ${error.message}`)));
      this.#worker.on('exit', (code) => {
        const gone = this.#end(unavailable(`the embedded database's worker exited (code ${code})`));
        reject(gone);
        // After close() began the exit is the plan; a failed open is told to whoever waits for it (startup fails).
        if (!this.#closed && !openFailed) lost(gone);
      });
    });
    // A database that fails to open is reported to whoever waits for it (`waitReady`), not as an unhandled rejection.
    this.#opened.catch(() => undefined);
  }

  get ready(): boolean {
    return this.#ready;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get waitReady(): Promise<void> {
    return this.#opened;
  }

  async query<T>(sql: string, params?: unknown[], options?: StatementOptions): Promise<Results<T>> {
    return (await this.#call({ op: 'query', sql, params, options })) as Results<T>;
  }

  async exec(sql: string): Promise<Results[]> {
    return (await this.#call({ op: 'exec', sql })) as Results[];
  }

  /** PGlite's transaction: statements outside it wait until it ends, as they do in PGlite. */
  async transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T> {
    const tx = (await this.#call({ op: 'begin' })) as number;
    let closed = false;
    const open = () => {
      if (closed) throw new Error('Transaction is closed');
    };
    const handle: Transaction = {
      query: async (sql, params, options) => {
        open();
        return (await this.#call({ op: 'query', sql, params, options: options as StatementOptions, tx })) as never;
      },
      sql: () => Promise.reject(new Error('tagged statements are not forwarded to the embedded database')),
      exec: async (sql) => {
        open();
        return (await this.#call({ op: 'exec', sql, tx })) as Results[];
      },
      rollback: async () => {
        open();
        await this.#call({ op: 'rollback', tx });
        closed = true;
      },
      listen: (channel, callback) => this.listen(channel, callback),
      get closed() {
        return closed;
      },
    };
    let result: T;
    try {
      result = await callback(handle);
    } catch (error) {
      closed = true;
      await this.#call({ op: 'end', tx, commit: false }).catch(() => undefined);
      throw error;
    }
    closed = true;
    await this.#call({ op: 'end', tx, commit: true });
    return result;
  }

  /** LISTEN on `channel`; the callback gets each NOTIFY's payload. Resolves to the matching unlisten. */
  async listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>> {
    let callbacks = this.#listeners.get(channel);
    if (!callbacks) {
      callbacks = new Set();
      this.#listeners.set(channel, callbacks);
      await this.#call({ op: 'listen', channel });
    }
    callbacks.add(callback);
    return async () => {
      callbacks.delete(callback);
      if (callbacks.size > 0 || this.#listeners.get(channel) !== callbacks) return;
      this.#listeners.delete(channel);
      await this.#call({ op: 'unlisten', channel });
    };
  }

  /**
   * Serves the database to PostgreSQL clients (the job store's pool) on a loopback port, from the worker: pglite-socket
   * sends each wire message on its own, which must reach PGlite with nothing of this side's between them.
   */
  async serveSocket(maxConnections: number): Promise<{ connectionString: string; stop: () => Promise<void> }> {
    const { server, address } = (await this.#call({ op: 'serve', maxConnections })) as { server: number; address: string };
    return {
      connectionString: `postgres://postgres@${address}/postgres`,
      // A closed database took its socket servers with it.
      stop: async () => (this.#closed ? undefined : void (await this.#call({ op: 'unserve', server }))),
    };
  }

  /** Closes PGlite (it writes what it holds) and ends the worker. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      if (!this.#gone) await this.#send({ op: 'close' });
    } finally {
      this.#end(new Error(CLOSED_MESSAGE));
      await this.#worker.terminate();
    }
  }

  #call(request: DistributiveOmit<Request, 'id'>): Promise<unknown> {
    if (this.#closed) return Promise.reject(this.#gone ?? new Error(CLOSED_MESSAGE));
    return this.#send(request);
  }

  #send(request: DistributiveOmit<Request, 'id'>): Promise<unknown> {
    if (this.#gone) return Promise.reject(this.#gone);
    const id = this.#nextId++;
    if (this.#pending.size === 0) this.#worker.ref();
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ ...request, id });
    });
  }

  #onReply(reply: Exclude<Reply, { opened: true } | { failed: ErrorFields }>): void {
    if ('notify' in reply) {
      for (const callback of this.#listeners.get(reply.notify) ?? []) callback(reply.payload);
      return;
    }
    const call = this.#pending.get(reply.id);
    if (!call) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0 && this.#ready) this.#worker.unref();
    if (reply.error) call.reject(asError(reply.error));
    else call.resolve(reply.result);
  }

  /** Fails every call in flight and every later one with `error`; returns the error that ended it first. */
  #end(error: Error): Error {
    this.#gone ??= error;
    for (const call of this.#pending.values()) call.reject(this.#gone);
    this.#pending.clear();
    return this.#gone;
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A PostgreSQL error rebuilt on this side with its fields, so callers map it by its code as before. */
function asError(fields: ErrorFields): Error {
  return Object.assign(new Error(fields.message), fields);
}

/**
 * A worker that is gone reads as a database connection lost (SQLSTATE 08006), so callers answer 503 retryable and
 * readiness fails, as for a PostgreSQL server that went away (`connection-error.ts`).
 */
function unavailable(message: string): Error {
  return Object.assign(new Error(message), { code: '08006' });
}
