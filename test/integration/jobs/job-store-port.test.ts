import net, { type AddressInfo } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { openSocketServer } from '../../../adapters/db/socket-server.ts';

/** Whether a `listen` call asks the OS for a port: `listen(0, …)` or `listen({ port: 0, … })`. */
function asksForAnyPort(args: unknown[]): boolean {
  const [first] = args;
  return first === 0 || (typeof first === 'object' && first !== null && (first as { port?: unknown }).port === 0);
}

// The job store's socket server listens in the embedded database's worker thread, out of this thread's reach: the
// function the worker opens it with runs here, on a PGlite of the test's own (so on PostgreSQL runs too).
describe('the job store’s PGlite socket port', () => {
  let pglite: PGlite;
  beforeAll(async () => {
    pglite = await PGlite.create();
  });
  afterAll(async () => {
    await pglite?.close();
  });

  it('is the one the OS gave its own listener: a port freed and taken by another process meanwhile cannot fail the open', async () => {
    const listen = net.Server.prototype.listen;
    const thieves: net.Server[] = [];
    // Any server that listens on a port the OS picks and then closes has that port taken the moment it is free, as
    // another process on the machine may. Before: the port was probed that way, then listened on.
    net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
      if (asksForAnyPort(args)) {
        this.once('listening', () => {
          const { port } = this.address() as AddressInfo;
          this.once('close', () => {
            thieves.push(net.createServer().listen(port, '127.0.0.1'));
          });
        });
      }
      return listen.apply(this, args as Parameters<typeof listen>);
    } as typeof listen;
    onTestFinished(async () => {
      net.Server.prototype.listen = listen;
      await Promise.all(thieves.map((thief) => new Promise((resolve) => thief.close(resolve))));
    });

    const server = await openSocketServer(pglite, 1);
    onTestFinished(() => server.stop());
    const client = new pg.Client({ connectionString: `postgres://postgres@${server.getServerConn()}/postgres` });
    await client.connect();
    try {
      expect((await client.query<{ reached: number }>('select 1 as reached')).rows).toEqual([{ reached: 1 }]);
    } finally {
      await client.end();
    }
  });
});
