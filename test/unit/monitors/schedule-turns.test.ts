import { describe, expect, it } from 'vitest';
import type { SqlDb, SqlRunner } from '../../../adapters/db/sql.ts';
import { createScheduleTurns } from '../../../adapters/monitors/schedule-turns.ts';

/** A database that records where each statement ran: `db`, or the transaction it opened (`tx1`, `tx2`, …). */
function recordingDb() {
  const statements: string[] = [];
  let transactions = 0;
  const runner = (where: string): SqlRunner => ({
    all: async <T extends object>(sql: string) => {
      statements.push(`${where}: ${sql}`);
      return [] as T[];
    },
  });
  const db: SqlDb = { ...runner('db'), transaction: (work) => work(runner(`tx${++transactions}`)) };
  return { db, statements };
}

/** Lets every pending promise callback and I/O callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('a monitor’s schedule turns', () => {
  for (const shared of [false, true]) {
    it(`run one change of a monitor at a time in a process, and other monitors’ changes meanwhile (shared: ${shared})`, async () => {
      const turns = createScheduleTurns(recordingDb().db, { shared });
      const events: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const first = turns.take('m1', async () => {
        events.push('m1 first starts');
        await held;
        events.push('m1 first ends');
      });
      const second = turns.take('m1', async () => void events.push('m1 second starts'));
      const other = turns.take('m2', async () => void events.push('m2 starts'));
      await other;
      await settle();
      release();
      await Promise.all([first, second]);
      expect(events).toEqual(['m1 first starts', 'm2 starts', 'm1 first ends', 'm1 second starts']);
    });
  }

  it('go on with the change queued behind one that failed', async () => {
    const turns = createScheduleTurns(recordingDb().db, { shared: false });
    let fail!: () => void;
    const failing = new Promise<void>((_resolve, reject) => (fail = () => reject(new Error('failed'))));
    const first = turns.take('m1', () => failing);
    const next = turns.take('m1', async () => 'next');
    fail();
    await expect(first).rejects.toThrow('failed');
    expect(await next).toBe('next');
  });

  it('shared: in a READ COMMITTED transaction with a lock timeout and an idle timeout, hold the monitor’s advisory lock, and run the change’s statements and transactions in it', async () => {
    const { db, statements } = recordingDb();
    await createScheduleTurns(db, { shared: true }).take('m1', async (turn) => {
      await turn.all('select 1');
      await turn.transaction((tx) => tx.all('delete 1'));
    });
    expect(statements).toEqual([
      'tx1: set transaction isolation level read committed',
      `tx1: select set_config('lock_timeout', ?, true), set_config('idle_in_transaction_session_timeout', ?, true)`,
      `tx1: select pg_advisory_xact_lock(hashtext('monitor-schedule:' || ?))`, 'tx1: select 1', 'tx1: delete 1']);
  });

  it('not shared: take no lock, and leave transactions to the change', async () => {
    const { db, statements } = recordingDb();
    await createScheduleTurns(db, { shared: false }).take('m1', async (turn) => {
      await turn.all('select 1');
      await turn.transaction((tx) => tx.all('delete 1'));
    });
    expect(statements).toEqual(['db: select 1', 'tx1: delete 1']);
  });
});
