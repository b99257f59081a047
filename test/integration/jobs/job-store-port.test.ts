import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { embeddedDatabase, initOrm, type Orm } from '../../../adapters/db/orm.ts';
import { openJobStore } from '../../../jobs/job-store.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';

// PGlite runs only: only they serve the job store over a socket of their own.
describe.skipIf(process.env.TEST_DATABASE_URL)('the job store’s PGlite socket port (PGlite runs)', () => {
  let db: TestDatabase;
  let orm: Orm;
  beforeAll(async () => {
    db = await createTestDatabase();
    orm = await initOrm({ databaseUrl: db.databaseUrl, dataDir: db.dataDir });
  });
  afterAll(async () => {
    await orm?.close(true);
    await db?.drop();
  });

  it('is the one the OS gave its own listener: a port freed and taken by another process meanwhile cannot fail the open', async () => {
    const listen = net.Server.prototype.listen;
    const thieves: net.Server[] = [];
    // Any server that listens on a port the OS picks and then closes has that port taken the moment it is free, as
    // another process on the machine may. Before: openJobStore probed a free port that way, then listened on it.
    net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
      if (args[0] === 0) {
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

    const jobs = await openJobStore({ pglite: embeddedDatabase(orm), processEvery: 60_000 });
    try {
      jobs.agenda.define('port.reached', async () => {});
      await jobs.agenda.schedule(new Date(), 'port.reached');
      expect((await jobs.agenda.queryJobs({ name: 'port.reached' })).jobs).toHaveLength(1);
    } finally {
      await jobs.close(0);
    }
  });
});
