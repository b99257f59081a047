import { afterAll, beforeAll } from 'vitest';
import { initOrm, type Orm } from '../../adapters/db/orm.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

export interface MigratedOrm {
  /** The database of the file (or describe block) alone. */
  readonly db: TestDatabase;
  /** The ORM on it, migrations applied. */
  readonly orm: Orm;
  /** Closes the ORM and opens a new one on the same database, as a restarted service would. */
  reopen(): Promise<Orm>;
}

/**
 * A database of its own with a migrated ORM on it, for the tests of the file or describe block that calls this:
 * opened in a `beforeAll`, closed and dropped in an `afterAll`. Hooks run as a stack, so the caller's own `beforeAll`
 * hooks, registered after this call, see both, and its `afterAll` hooks run before they close.
 * `empty`: a database with no migrations applied (not the run's migrated template), for the migrations' own tests;
 * its first start, which applies them all, is timed in the log.
 */
export function useMigratedOrm(options: { empty?: boolean } = {}): MigratedOrm {
  let db: TestDatabase | undefined;
  let orm: Orm | undefined;
  const open = (database: TestDatabase) => initOrm({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
  const opened = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useMigratedOrm: read db and orm in hooks and tests, once its beforeAll has run');
    return value;
  };

  beforeAll(async () => {
    db = await createTestDatabase({ empty: options.empty });
    const started = performance.now();
    orm = await open(db);
    if (options.empty) console.info(`[${db.backend}] cold init + migrate: ${Math.round(performance.now() - started)} ms`);
  });
  afterAll(async () => {
    await orm?.close(true);
    await db?.drop();
  });

  return {
    get db() {
      return opened(db);
    },
    get orm() {
      return opened(orm);
    },
    async reopen() {
      const closing = opened(orm);
      orm = undefined;
      await closing.close(true);
      orm = await open(opened(db));
      return orm;
    },
  };
}
