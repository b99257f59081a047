import { ensurePrivateDataDir } from './data-dir-mode.ts';
import { join, resolve } from 'node:path';
import type { MikroORM, Options } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import pg from 'pg';
import { PgliteDriver } from '@mikro-orm/pglite';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { MikroORM as SqlMikroORM, type AbstractSqlDriver, type SqlEntityManager } from '@mikro-orm/sql';
import { EmbeddedDatabase } from './embedded-database.ts';
import { ENTITIES } from './entities/index.ts';
import { MIGRATIONS } from './migrations/index.ts';

/** The ORM the service uses, whichever driver backs it: both drivers speak the same SQL entity manager. */
export type Orm = MikroORM<AbstractSqlDriver, SqlEntityManager<AbstractSqlDriver>>;
export type Em = SqlEntityManager<AbstractSqlDriver>;

export interface InitOrmOptions {
  /** `postgres://…`: a real PostgreSQL server. Absent: embedded PGlite under `dataDir`. */
  databaseUrl?: string;
  /** The service's data folder; PGlite keeps its cluster in `<dataDir>/pglite`. Default `./data`. */
  dataDir?: string;
  debug?: boolean;
  /** Apply pending migrations before returning (default true). */
  migrate?: boolean;
  /** PGlite only: told when its worker ends on its own; by default the process logs it as fatal and exits non-zero. */
  onDatabaseLost?: (gone: Error) => void;
}

export const PGLITE_SUBDIR = 'pglite';
const CONNECT_TIMEOUT_MS = 5_000;

/** Opens the database and applies the committed migrations. */
export async function initOrm(options: InitOrmOptions = {}): Promise<Orm> {
  const config = ormConfig(options);
  let orm: Orm;
  try {
    // Both drivers are SQL drivers; init's signature only knows the generic driver interface.
    orm = (await SqlMikroORM.init(config)) as unknown as Orm;
  } catch (error) {
    await embeddedDatabaseOf(config.driverOptions)?.close();
    throw error;
  }
  if (options.migrate !== false) {
    try {
      await migrateUnderLock(orm, options.databaseUrl);
    } catch (error) {
      await orm.close(true);
      throw error;
    }
  }
  return orm;
}

/** Any number that is ours alone: the advisory lock two instances take before migrating one database. */
const MIGRATION_LOCK = 726_341_001;

/**
 * Applies pending migrations while holding a session advisory lock, so instances starting together on an empty
 * database migrate one after the other (the second finds nothing to do). PGlite has one owner, its data-folder lock.
 */
async function migrateUnderLock(orm: Orm, databaseUrl: string | undefined): Promise<void> {
  if (!databaseUrl) {
    await orm.migrator.up();
    return;
  }
  const lock = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await orm.migrator.up();
  } finally {
    await lock.end();
  }
}

function ormConfig(options: InitOrmOptions): Partial<Options> {
  const shared = {
    entities: ENTITIES,
    extensions: [Migrator],
    debug: options.debug ?? false,
    migrations: {
      migrationsList: MIGRATIONS,
      // Migrations are hand-written SQL: no generated snapshot to keep in step with two drivers. Should one
      // ever be enabled, a fixed name keeps PGlite and PostgreSQL from writing two different snapshot files.
      snapshot: false,
      snapshotOnMigrate: false,
      snapshotName: '.snapshot-service',
      transactional: true,
      allOrNothing: true,
      silent: !options.debug,
    },
  } satisfies Partial<Options>;

  if (options.databaseUrl) {
    return {
      ...shared,
      driver: PostgreSqlDriver,
      clientUrl: options.databaseUrl,
      pool: { min: 0, max: 10 },
      // A server that accepts TCP but never answers must not hold a pool slot (or shutdown) forever.
      driverOptions: { connectionTimeoutMillis: CONNECT_TIMEOUT_MS },
    };
  }
  const dataDir = resolve(options.dataDir ?? './data');
  ensurePrivateDataDir(dataDir);
  // PGlite takes the cluster location as its folder; it creates the folder itself, but not its parents.
  const pglite = new EmbeddedDatabase({ dataDir: join(dataDir, PGLITE_SUBDIR) }, options.onDatabaseLost);
  // Given as a function: the ORM copies its options, which a class instance with private fields does not survive.
  return { ...shared, driver: EmbeddedDatabaseDriver, dbName: join(dataDir, PGLITE_SUBDIR), driverOptions: { pglite: () => pglite } };
}

/**
 * PGlite's driver over the service's own `EmbeddedDatabase` (its worker thread). The ORM leaves an instance it was
 * given open when it closes; this one is the ORM's alone, so closing the ORM closes it.
 */
class EmbeddedDatabaseDriver extends PgliteDriver {
  override async close(force?: boolean): Promise<void> {
    try {
      await super.close(force);
    } finally {
      await embeddedDatabaseOf(this.config.get('driverOptions'))?.close();
    }
  }
}

function embeddedDatabaseOf(driverOptions: unknown): EmbeddedDatabase | undefined {
  const pglite = (driverOptions as { pglite?: unknown } | undefined)?.pglite;
  const database = typeof pglite === 'function' ? (pglite as () => unknown)() : undefined;
  return database instanceof EmbeddedDatabase ? database : undefined;
}

/** The embedded database, to serve it to other clients (the job store, the key-change feed); none on a server. */
export function embeddedDatabase(orm: Orm): EmbeddedDatabase | undefined {
  return embeddedDatabaseOf(orm.config.get('driverOptions'));
}

/**
 * How long a readiness answer is given again without a round trip: probes come every few seconds, and anyone may ask
 * (`/ready` needs no key), so a flood of checks costs one ping a second (security review h, F3).
 */
export const READINESS_ANSWER_MS = 1_000;

/**
 * The service's readiness probe: a check asked for while a ping is under way shares that ping, so readiness checks at
 * once (anyone may ask, with no key and no rate limit: `GET /ready`, GraphQL `readiness`) cost one round trip.
 */
export function sharedPing(orm: Orm, options: { timeoutMs?: number; now?: () => number } = {}): () => Promise<boolean> {
  const now = options.now ?? Date.now;
  let running: Promise<boolean> | undefined;
  let answered: { ready: boolean; at: number } | undefined;
  return () => {
    if (answered && now() - answered.at < READINESS_ANSWER_MS) return Promise.resolve(answered.ready);
    return (running ??= pingDatabase(orm, options.timeoutMs)
      .then((ready) => ((answered = { ready, at: now() }), ready))
      .finally(() => {
        running = undefined;
      }));
  };
}

/** Readiness probe: a trivial round trip, bounded so a hung database reads as "not ready" quickly. */
export async function pingDatabase(orm: Orm, timeoutMs = 1_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((done) => {
    timer = setTimeout(() => done(false), timeoutMs);
  });
  const ping = orm.em
    .getConnection()
    .execute('select 1 as ok')
    .then(() => true, () => false);
  try {
    return await Promise.race([ping, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
