import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { isDatabaseUnavailable } from '../../adapters/db/connection-error.ts';
import { initOrm, pingDatabase, type Orm } from '../../adapters/db/orm.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/** The next worker thread this process starts: the embedded database's, when the ORM opens it. */
function nextWorker(): Promise<Worker> {
  return new Promise((resolve) => process.once('worker', resolve));
}

// The embedded database alone runs in a worker thread; PostgreSQL runs are skipped.
describe.skipIf(process.env.TEST_DATABASE_URL)('the embedded database runs off the thread that serves calls (PGlite runs)', () => {
  let db: TestDatabase;
  let orm: Orm | undefined;
  let worker: Promise<Worker>;
  /** What the service would exit the process for (by default it does): here only recorded. */
  let lost: Error[];
  beforeEach(async () => {
    db = await createTestDatabase();
    worker = nextWorker();
    lost = [];
    orm = await initOrm({ dataDir: db.dataDir, migrate: false, onDatabaseLost: (gone) => lost.push(gone) });
  });
  afterEach(async () => {
    await orm?.close(true);
    await db.drop();
  });

  it('an HTTP call is answered while a long statement runs', async () => {
    const server = createServer((_request, response) => response.end('ok'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    onTestFinished(() => void server.close());
    const connection = orm!.em.getConnection();
    // A first statement opens the ORM's connection, which takes turns of the event loop of its own.
    await connection.execute('select 1');
    const finished: string[] = [];
    // In the service's own thread, PGlite's WASM holds the thread for the whole statement: no socket is served.
    const statement = connection.execute('select pg_sleep(1)').then(() => finished.push('statement'));
    const call = fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)
      .then((response) => response.text())
      .then(() => finished.push('http call'));
    await Promise.all([statement, call]);
    expect(finished).toEqual(['http call', 'statement']);
  });

  it('keeps PostgreSQL errors whole: callers map them by their code', async () => {
    await expect(orm!.em.getConnection().execute(`select 'x'::int`)).rejects.toMatchObject({ code: '22P02', message: expect.stringContaining('invalid input syntax') });
    await expect(orm!.em.getConnection().execute('select 1 as ok')).resolves.toEqual([{ ok: 1 }]);
  });

  it('a worker that dies fails the statement in flight and every later one as a database gone away, and readiness says so', async () => {
    const inFlight = orm!.em.getConnection().execute('select pg_sleep(5)');
    await (await worker).terminate();
    const error = await inFlight.catch((failure: unknown) => failure);
    expect(isDatabaseUnavailable(error)).toBe(true);
    const later = await orm!.em.getConnection().execute('select 1').catch((failure: unknown) => failure);
    expect(isDatabaseUnavailable(later)).toBe(true);
    expect(await pingDatabase(orm!)).toBe(false);
    // Nothing restarts the worker alone: the process is told to end, so its supervisor restarts it.
    expect(lost).toHaveLength(1);
    expect(isDatabaseUnavailable(lost[0])).toBe(true);
  });

  it('closing the ORM closes the database and ends its worker', async () => {
    const exited = once(await worker, 'exit');
    await orm!.close(true);
    orm = undefined;
    await exited;
    expect(lost).toEqual([]);
  });
});
