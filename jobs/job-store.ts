import { setImmediate as afterMicrotasks } from 'node:timers/promises';
import { MongoBackend } from '@agendajs/mongo-backend';
import { Agenda, type AgendaBackend } from 'agenda';
import pg from 'pg';
import type { EmbeddedDatabase } from '../adapters/db/embedded-database.ts';
import { JOBS_TABLE } from '../adapters/db/migrations/Migration20261124000000_jobs.ts';
import { StoppingListenChannel } from './listen-channel.ts';
import { SettlingJobRepository } from './settling-repository.ts';

export interface JobStoreOptions {
  /** `postgres://…`: the service's own database holds the jobs. */
  databaseUrl?: string;
  /** The embedded database, served to the job store over a loopback PostgreSQL-protocol socket. */
  pglite?: EmbeddedDatabase;
  /** `mongodb://…`: the jobs live in MongoDB instead (the design's production choice). */
  mongodbUrl?: string;
  /** How often a worker looks for due jobs when no notification wakes it. */
  processEvery?: number;
  /** A job whose worker stopped touching it for this long is taken by another worker. */
  lockLifetimeMs?: number;
  /** Failures the job store reports on its own (not in answer to a call), with what failed. */
  onError?: (error: unknown, failure: JobStoreFailure) => void;
}

/**
 * What failed: the job store's connection (its pool, the LISTEN channel), or an unlock of a job this worker had locked
 * (the job then stays locked until its lock lifetime ends, and waits that long for another worker).
 */
export type JobStoreFailure = 'connection' | 'unlock';

/** The log message of each failure. */
export const JOB_STORE_FAILURE_MESSAGES: Record<JobStoreFailure, string> = {
  connection: 'job store connection failed',
  unlock: 'job store could not unlock a job: it stays locked until its lock lifetime ends',
};

export interface JobStore {
  agenda: Agenda;
  backend: 'postgresql' | 'pglite' | 'mongodb';
  close(drainMs: number): Promise<void>;
}

/** Pool connections each worker opens to the job store; the PGlite socket must accept all of them. */
const POOL_MAX = 4;

/**
 * Agenda (6.2.6) has two shutdowns: drain waits for the running jobs, stop unlocks the jobs this worker locked but has
 * not started and starts no more. Drain ends by discarding its job processor, so a stop after it does nothing and those
 * jobs stay locked for their lock lifetime, out of every other worker's reach. Begun together, stop unlocks them at
 * once while drain waits, at most drainMs, for the running jobs (whose locks stop leaves alone) to finish.
 */
async function stopWhenRunningJobsEnd(agenda: Agenda, drainMs: number): Promise<void> {
  const drained = agenda.drain({ timeout: drainMs, closeConnection: false });
  try {
    await agenda.stop(false);
  } finally {
    await drained;
  }
}

/**
 * The job store is configuration: MongoDB when a URL is given, otherwise the service's PostgreSQL (or its embedded
 * PGlite through a socket). Tables come from the service's migrations; workers never create them.
 */
export async function openJobStore(options: JobStoreOptions): Promise<JobStore> {
  const lockLifetime = options.lockLifetimeMs ?? 120_000;
  if (options.mongodbUrl) {
    const backend = new MongoBackend({ address: options.mongodbUrl, collection: 'jobs' });
    const agenda = new Agenda({ backend, processEvery: options.processEvery ?? 2_000, defaultLockLifetime: lockLifetime });
    return {
      agenda,
      backend: 'mongodb',
      async close(drainMs) {
        await stopWhenRunningJobsEnd(agenda, drainMs);
        await backend.disconnect();
      },
    };
  }
  let socket: Awaited<ReturnType<EmbeddedDatabase['serveSocket']>> | undefined;
  let connectionString = options.databaseUrl;
  if (!connectionString) {
    if (!options.pglite) throw new Error('openJobStore needs a database URL, a PGlite instance or a MongoDB URL');
    socket = await options.pglite.serveSocket(POOL_MAX + 1);
    connectionString = socket.connectionString;
  }
  // Our own pool, so a connection dropped while idle (a database restart) is logged instead of crashing the process.
  // A database that went away must not hold a caller (or shutdown's pool.end) waiting for a connection forever.
  const pool = new pg.Pool({ connectionString, max: POOL_MAX, connectionTimeoutMillis: 5_000 });
  pool.on('error', (error) => options.onError?.(error, 'connection'));
  const repository = new SettlingJobRepository({ pool, tableName: JOBS_TABLE, ensureSchema: false }, (error) => options.onError?.(error, 'unlock'));
  // What the backend's PostgresBackend is, but with our repository (it builds its own); its channel is replaced below and
  // its job log is not used.
  const backend: AgendaBackend = {
    name: 'PostgreSQL',
    repository,
    ownsConnection: false,
    connect: () => repository.connect(),
    disconnect: () => repository.disconnect(),
  };
  // LISTEN/NOTIFY does not cross PGlite socket connections: workers poll instead. On PostgreSQL the channel is ours, not
  // the backend's, so closing stops its reconnects too (jobs/listen-channel.ts).
  const channel = socket ? undefined : new StoppingListenChannel({ pool });
  // The LISTEN connection reconnects by itself after a loss, and reports the loss as an 'error' event: heard here, so
  // a database restart is logged, not an uncaught exception.
  channel?.on('error', (error) => options.onError?.(error, 'connection'));
  const agenda = new Agenda({
    backend,
    notificationChannel: channel,
    processEvery: options.processEvery ?? (socket ? 1_000 : 5_000),
    defaultLockLifetime: lockLifetime,
  });
  return {
    agenda,
    backend: socket ? 'pglite' : 'postgresql',
    async close(drainMs) {
      repository.stopLocking();
      // A lookup that answered before that reaches Agenda's locked jobs in the microtasks after its answer: let them
      // run, so that stop finds its job and unlocks it. A lookup answering from now on unlocks its job itself.
      await afterMicrotasks();
      await stopWhenRunningJobsEnd(agenda, drainMs);
      await repository.settle();
      await pool.end();
      await socket?.stop();
    },
  };
}
