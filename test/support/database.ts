import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql';

export interface TestDatabase {
  /** Set on real PostgreSQL (TEST_DATABASE_URL given): a fresh database of its own on that server. */
  databaseUrl?: string;
  /** Set on PGlite: a fresh temporary data folder (pass as `initOrm({ dataDir })`). */
  dataDir?: string;
  /** Which backend this run uses, for test names and backend-specific assertions. */
  backend: 'postgresql' | 'pglite';
  drop(): Promise<void>;
}

/**
 * A database of the test file's own, so files run in parallel without seeing each other's rows:
 * `CREATE DATABASE test_<random>` on TEST_DATABASE_URL's server, or a fresh PGlite folder otherwise.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-test-'));
    return { dataDir, backend: 'pglite', drop: () => rm(dataDir, { recursive: true, force: true }) };
  }

  const name = `test_${randomBytes(6).toString('hex')}`;
  await runOnServer(serverUrl, `create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    backend: 'postgresql',
    // FORCE (PostgreSQL 13+) ends connections a failed test left open, so the drop never hangs.
    drop: () => runOnServer(serverUrl, `drop database if exists "${name}" with (force)`),
  };
}

/** One statement on a short-lived admin connection (CREATE/DROP DATABASE cannot run inside a transaction). */
async function runOnServer(serverUrl: string, sql: string): Promise<void> {
  const admin = await MikroORM.init({
    driver: PostgreSqlDriver,
    clientUrl: serverUrl,
    entities: [],
    discovery: { warnWhenNoEntities: false },
    pool: { min: 0, max: 1 },
  });
  try {
    await admin.em.getConnection().execute(sql);
  } finally {
    await admin.close(true);
  }
}
