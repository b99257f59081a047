import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { PGLITE_SUBDIR } from '../../../adapters/db/orm.ts';
import { socketServedPglite } from '../../../adapters/db/socket-served-pglite.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';

// PGlite runs only: only they serve PGlite to the job store, and only they have a PGlite template to copy. The test
// waits on no timer; its time was PGlite's start, where a fresh cluster runs initdb (6 to 12 s of CPU, 25 to 43 s on a
// loaded machine) and a copy of the run's migrated cluster starts in under 2 s.
describe.skipIf(process.env.TEST_DATABASE_URL)('the job store’s PGlite socket (PGlite runs)', () => {
  let db: TestDatabase;
  let pglite: PGlite;
  beforeAll(async () => {
    db = await createTestDatabase();
    pglite = await PGlite.create(join(db.dataDir!, PGLITE_SUBDIR));
  });
  afterAll(async () => {
    await pglite?.close();
    await db?.drop();
  });

  it('a job-store statement sent over the socket during a service transaction is not part of it', async () => {
    await pglite.exec('create table "a" ("n" int); create table "b" ("n" int)');
    const server = new PGLiteSocketServer({ db: socketServedPglite(pglite), host: '127.0.0.1', port: 0, maxConnections: 2 });
    await server.start();
    onTestFinished(() => server.stop());
    const client = new pg.Client({ connectionString: `postgres://postgres@${server.getServerConn()}/postgres` });
    await client.connect();
    onTestFinished(() => client.end());

    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    const transaction = pglite
      .transaction(async (tx) => {
        await tx.query('insert into "a" values (1)');
        opened();
        await arrival;
        throw new Error('rolled back');
      })
      .catch((error: Error) => error.message);
    await open;
    // The socket's statement has reached PGlite when it asks for the transaction lock (and waits), or, without that
    // wait, when it runs: either way the transaction is then rolled back.
    const lock = pglite._runExclusiveTransaction.bind(pglite);
    const run = pglite.execProtocolRawStream.bind(pglite);
    pglite._runExclusiveTransaction = <T>(work: () => Promise<T>) => (arrived(), lock(work));
    pglite.execProtocolRawStream = (message, options) => (arrived(), run(message, options));
    const sent = client.query('insert into "b" values (2)');
    expect(await transaction).toBe('rolled back');
    await sent;
    const count = async (table: string) => (await pglite.query<{ n: number }>(`select count(*)::int as "n" from "${table}"`)).rows[0]!.n;
    expect({ a: await count('a'), b: await count('b') }).toEqual({ a: 0, b: 1 });
  });

  it('a parameterised statement over the socket reaches PGlite whole, whatever the service sends between its messages', async () => {
    const served = socketServedPglite(pglite);
    // pglite-socket runs each wire message (Parse, Bind, Describe, Execute, Sync) on its own: a statement of the
    // service between the client's Parse and its Bind took the unnamed statement the Bind was meant for. Here the
    // service sends one as each Parse from the socket arrives, as a worker's messages may come at any point.
    const service: Promise<number>[] = [];
    const run = served.execProtocolRawStream.bind(served);
    served.execProtocolRawStream = (message, options) => {
      if (message[0] === 'P'.charCodeAt(0)) {
        const round = service.length;
        service.push(pglite.query<{ n: number }>('select $1::int + $2::int + $3::int as "n"', [round, 1, 2]).then((result) => result.rows[0]!.n));
      }
      return run(message, options);
    };
    const server = new PGLiteSocketServer({ db: served, host: '127.0.0.1', port: 0, maxConnections: 2 });
    await server.start();
    onTestFinished(() => server.stop());
    const client = new pg.Client({ connectionString: `postgres://postgres@${server.getServerConn()}/postgres` });
    await client.connect();
    onTestFinished(() => client.end());

    const sums: number[] = [];
    for (let round = 0; round < 5; round++) {
      const values = [round, 10, 20, 30, 40];
      sums.push(Number((await client.query<{ sum: number }>('select $1::int + $2::int + $3::int + $4::int + $5::int as "sum"', values)).rows[0]!.sum));
    }
    expect(sums).toEqual([100, 101, 102, 103, 104]);
    expect(await Promise.all(service)).toEqual([3, 4, 5, 6, 7]);
  });
});
