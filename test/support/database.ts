import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { PGLITE_SUBDIR } from '../../adapters/db/orm.ts';
import { runOnServer } from './database-template.ts';

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
 * A database of the test file's own, so files run in parallel without seeing each other's rows: a copy of the run's
 * migrated template (`CREATE DATABASE test_<random> TEMPLATE …` on TEST_DATABASE_URL's server, or a copied PGlite
 * folder), or an empty one when `empty` is asked (a test of the migrations themselves).
 */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  const template = options.empty ? undefined : inject('databaseTemplate');
  if (!serverUrl) {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-test-'));
    if (template?.kind === 'pglite') await cp(join(template.dataDir, PGLITE_SUBDIR), join(dataDir, PGLITE_SUBDIR), { recursive: true });
    return { dataDir, backend: 'pglite', drop: () => rm(dataDir, { recursive: true, force: true }) };
  }

  const name = `test_${randomBytes(6).toString('hex')}`;
  await runOnServer(serverUrl, template?.kind === 'postgresql' ? `create database "${name}" template "${template.name}"` : `create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    backend: 'postgresql',
    // FORCE (PostgreSQL 13+) ends connections a failed test left open, so the drop never hangs.
    drop: () => runOnServer(serverUrl, `drop database if exists "${name}" with (force)`),
  };
}
