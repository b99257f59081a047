import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { socketServedPglite } from '../../../jobs/socket-served-pglite.ts';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

it('a job-store statement sent over the socket during a service transaction is not part of it', async () => {
  const pglite = await PGlite.create();
  await pglite.exec('create table "a" ("n" int); create table "b" ("n" int)');
  const port = await freePort();
  const server = new PGLiteSocketServer({ db: socketServedPglite(pglite), host: '127.0.0.1', port, maxConnections: 2 });
  await server.start();
  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await client.connect();
  cleanup = async () => {
    await client.end();
    await server.stop();
    await pglite.close();
  };

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
