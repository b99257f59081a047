import { once } from 'node:events';
import { setImmediate as nextTurn } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoppingListenChannel } from '../../../jobs/listen-channel.ts';
import { openJobStore } from '../../../jobs/job-store.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { startProxy } from '../../support/tcp-proxy.ts';

/**
 * Closing the job store while its LISTEN connection reconnects (the job store's own PostgreSQL connection was lost).
 * The job store reaches the database through a proxy that holds the reconnect's new connection until the close has
 * begun, so the reconnect is under way when the channel is disconnected. Needs a PostgreSQL server.
 */
describe.runIf(process.env.TEST_DATABASE_URL)('the job store LISTEN channel, closed while it reconnects (PostgreSQL)', () => {
  let db: TestDatabase;
  let admin: pg.Client;
  const proxy = startProxy(new URL(process.env.TEST_DATABASE_URL ?? 'postgres://127.0.0.1'));

  beforeAll(async () => {
    db = await createTestDatabase();
    admin = new pg.Client({ connectionString: db.databaseUrl });
    await admin.connect();
    await proxy.listen();
  });
  afterAll(async () => {
    await admin?.end();
    await proxy.down();
    await db?.drop();
  });

  /** Ends every other connection to the test's database (so the reconnect needs a new one); returns how many LISTENed. */
  async function killConnections(): Promise<number> {
    const { rows } = await admin.query<{ listening: number }>(
      `select count(*) filter (where query like 'LISTEN%')::int as listening, bool_and(pg_terminate_backend(pid))
         from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
    );
    return rows[0]!.listening;
  }

  it('closes once a reconnect under way has won its connection, and leaves nothing listening', async () => {
    const errors: string[] = [];
    const failures = new Set<string>();
    // Nothing to poll for: the only new connection after the kill is the LISTEN channel's reconnect.
    const store = await openJobStore({
      databaseUrl: proxy.through(db.databaseUrl!),
      processEvery: 3_600_000,
      onError: (error, failure) => {
        errors.push(String(error));
        failures.add(failure);
      },
    });
    await store.agenda.start();
    const reconnect = proxy.holdNext();
    expect(await killConnections()).toBe(1);
    const held = await reconnect;

    const closing = store.close(0);
    // Before: the channel's disconnect left the reconnect running and close went on to pool.end(), which then waited
    // for the client the reconnect won and kept for LISTEN: forever.
    await nextTurn();
    held.pass();
    await closing;

    const { rows } = await admin.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = current_database() and query like 'LISTEN%' and state = 'idle'`);
    expect(rows[0]!.n).toBe(0);
    expect(errors.filter((message) => message.includes('after calling end'))).toEqual([]);
    // The lost LISTEN connection is reported as the connection's failure.
    expect([...failures]).toEqual(['connection']);
  }, 20_000);

  it('does not try again after a disconnect when the reconnect under way fails', async () => {
    const pool = new pg.Pool({ connectionString: proxy.through(db.databaseUrl!), max: 2 });
    const channel = new StoppingListenChannel({ pool });
    channel.on('error', () => undefined);
    await channel.connect();
    const reconnect = proxy.holdNext();
    expect(await killConnections()).toBe(1);
    const held = await reconnect;
    const failed = once(channel, 'error');

    let stopped = false;
    const afterStop: string[] = [];
    channel.on('stateChange', (state: string) => stopped && afterStop.push(state));
    const stopping = channel.disconnect();
    await nextTurn();
    held.cut();
    await stopping;
    stopped = true;
    await failed;

    // Before: the failed attempt, settling after the disconnect, set a reconnect timer ('reconnecting') whose attempts
    // then failed on the ended pool every 100 ms, for as long as the process lived.
    expect(afterStop).toEqual([]);
    expect(channel.state).toBe('disconnected');
    // A reconnect timer firing now would find the channel closed: no connection is asked of the pool.
    await channel.connect();
    expect(pool.totalCount).toBe(0);
    await pool.end();
  });

  it("disconnects once when asked twice at once (Agenda's stop and drain, both run by the job store's close)", async () => {
    const pool = new pg.Pool({ connectionString: db.databaseUrl!, max: 2 });
    const unlistens: string[] = [];
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (text: string) => Promise<unknown>;
      (client as { query: unknown }).query = (text: string) => {
        if (text.startsWith('UNLISTEN')) unlistens.push(text);
        return query(text);
      };
    });
    const channel = new StoppingListenChannel({ pool });
    await channel.connect();

    await Promise.all([channel.disconnect(), channel.disconnect()]);

    // Before: both ran the UNLISTENs, the second on a client already given back to the pool, then failed (swallowed
    // by the backend) to release it again.
    expect(unlistens).toEqual(['UNLISTEN "agenda:jobs"', 'UNLISTEN "agenda:jobs:state"']);
    expect(pool.idleCount).toBe(1);
    await pool.end();
  });
});
