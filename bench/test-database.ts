import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initOrm, PGLITE_SUBDIR } from '../adapters/db/orm.ts';
import { buildTemplate, runOnServer } from '../test/support/database-template.ts';

/**
 * What a test file pays for its database before its first test: a cold, empty database migrated from scratch, against
 * a copy of the run's migrated template (what test/support/database.ts now does). Interleaved rounds in one process;
 * PGlite, or PostgreSQL when TEST_DATABASE_URL is set.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const serverUrl = process.env.TEST_DATABASE_URL;
const { template, drop } = await buildTemplate();

async function once(fromTemplate: boolean): Promise<number> {
  const started = performance.now();
  if (serverUrl) {
    const name = `bench_${randomBytes(6).toString('hex')}`;
    await runOnServer(serverUrl, fromTemplate && template.kind === 'postgresql' ? `create database "${name}" template "${template.name}"` : `create database "${name}"`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    await (await initOrm({ databaseUrl: url.toString() })).close(true);
    const ms = performance.now() - started;
    await runOnServer(serverUrl, `drop database "${name}" with (force)`);
    return ms;
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-'));
  if (fromTemplate && template.kind === 'pglite') await cp(join(template.dataDir, PGLITE_SUBDIR), join(dataDir, PGLITE_SUBDIR), { recursive: true });
  await (await initOrm({ dataDir })).close(true);
  const ms = performance.now() - started;
  await rm(dataDir, { recursive: true, force: true });
  return ms;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const cold: number[] = [];
const copied: number[] = [];
try {
  for (let i = 0; i < ROUNDS; i++) {
    cold.push(await once(false));
    copied.push(await once(true));
  }
} finally {
  await drop();
}
console.log(
  JSON.stringify({
    backend: serverUrl ? 'postgresql' : 'pglite',
    rounds: ROUNDS,
    coldMigrateMs: Math.round(median(cold)),
    templateCopyMs: Math.round(median(copied)),
    ratio: Number((median(copied) / median(cold)).toFixed(3)),
  }),
);
