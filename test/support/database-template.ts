import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { initOrm } from '../../adapters/db/orm.ts';

/** Where the migrated template lives: a database on TEST_DATABASE_URL's server, or a PGlite data folder. */
export type DatabaseTemplate = { kind: 'postgresql'; name: string } | { kind: 'pglite'; dataDir: string };

/**
 * Migrates one database for the whole run; each test file then gets a copy of it (`CREATE DATABASE … TEMPLATE`, or a
 * copied PGlite folder) instead of paying a cold start and every migration of its own.
 */
export async function buildTemplate(): Promise<{ template: DatabaseTemplate; drop(): Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-template-'));
    await (await initOrm({ dataDir })).close(true);
    return { template: { kind: 'pglite', dataDir }, drop: () => rm(dataDir, { recursive: true, force: true }) };
  }
  const name = `test_template_${randomBytes(6).toString('hex')}`;
  await runOnServer(serverUrl, `create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  // Closed before any copy: PostgreSQL copies a template only while nobody is connected to it.
  await (await initOrm({ databaseUrl: url.toString() })).close(true);
  return { template: { kind: 'postgresql', name }, drop: () => runOnServer(serverUrl, `drop database if exists "${name}" with (force)`) };
}

/** One statement on a short-lived admin connection (CREATE/DROP DATABASE cannot run inside a transaction). */
export async function runOnServer(serverUrl: string, sql: string): Promise<void> {
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
