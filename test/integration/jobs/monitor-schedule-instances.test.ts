import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlDbFromOrm } from '../../../adapters/db/sql.ts';
import { createMonitorService, type MonitorPatch, type MonitorService } from '../../../adapters/monitors/monitor-service.ts';
import { createScheduleTurns, type ScheduleTurns } from '../../../adapters/monitors/schedule-turns.ts';
import { JOB } from '../../../jobs/jobs.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Two instances on one PostgreSQL, each with its own connections and job store: a change of a monitor's schedule on
 * one waits for a change of the same monitor in progress on the other, so the schedule left is the last row's.
 */
describe.runIf(process.env.TEST_DATABASE_URL)('a monitor’s schedule changed on two instances at once', () => {
  let one: TestService;
  let two: TestService;
  beforeAll(async () => {
    one = await startTestService({ jobs: { autostart: false } });
    two = await startTestService({ jobs: { autostart: false }, shareDatabaseWith: one });
  }, 120_000);
  afterAll(async () => {
    await two?.close();
    await one?.close();
  });

  /**
   * Instance one's monitors, except that its next change stops in its turn until released: as it enters its
   * transaction, its turn taken, nothing of it done yet (a PATCH of schedule or status, or a delete).
   */
  function holdingMonitors(): { monitors: MonitorService; holdNext(): Promise<() => void> } {
    let hold: { reached: () => void; released: Promise<void> } | undefined;
    const held = async () => {
      const next = hold;
      hold = undefined;
      if (next) {
        next.reached();
        await next.released;
      }
    };
    const db = sqlDbFromOrm(one.service.orm);
    const shared = createScheduleTurns(db, { shared: true });
    const turns: ScheduleTurns = {
      take: (monitorId, work) => shared.take(monitorId, (turn) => work({ ...turn, transaction: async (statements) => (await held(), turn.transaction(statements)) })),
    };
    const monitors = createMonitorService({ db, scheduler: one.service.jobs, turns, limits: (id) => one.service.credits.limits(id), clock: () => new Date() });
    return {
      monitors,
      holdNext() {
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        return new Promise((reached) => (hold = { reached: () => reached(release), released }));
      },
    };
  }

  /** Advisory locks some session of this test's database is waiting for. */
  async function advisoryWaits(): Promise<number> {
    const [row] = await one.service.orm.em
      .getConnection()
      .execute<{ waiting: string }[]>(
        `select count(*) as "waiting" from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`,
        [],
        'all',
      );
    return Number(row.waiting);
  }

  /** Whether a change finished, or is waiting for an advisory lock, whichever is seen first. */
  async function finishedOrWaiting(change: Promise<unknown>): Promise<'finished' | 'waiting'> {
    let finished = false;
    change.then(
      () => (finished = true),
      () => (finished = true),
    );
    for (let i = 0; i < 400; i++) {
      if (finished) return 'finished';
      if ((await advisoryWaits()) > 0) return 'waiting';
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('the change neither finished nor waited for a lock');
  }

  async function schedulesOf(monitorId: string) {
    const { jobs } = await two.service.jobStore.agenda.queryJobs({ name: JOB.monitorSchedule, data: { monitorId } });
    return jobs.map((job) => ({ nextRunAt: job.nextRunAt ? new Date(job.nextRunAt).toISOString() : null, repeatInterval: Number(job.repeatInterval) }));
  }

  const cases: Array<{ name: string; later: MonitorPatch; left: (updatedAt: string) => Array<{ nextRunAt: string | null; repeatInterval: number }> }> = [
    { name: 'a pause', later: { status: 'paused' }, left: () => [] },
    { name: 'a daily schedule', later: { schedule: 'daily' }, left: (updatedAt) => [{ nextRunAt: new Date(Date.parse(updatedAt) + 86_400_000).toISOString(), repeatInterval: 86_400_000 }] },
  ];
  for (const { name, later, left } of cases) {
    it(`waits for the other instance’s turn, and leaves the last committed row’s schedule: ${name}`, async () => {
      const { workspaceId } = await one.newKey({ scopes: ['monitors:write'] });
      const { monitors, holdNext } = holdingMonitors();
      const { id } = await monitors.create(workspaceId, { name: 'm', target: { kind: 'search', keywords: 'rust' }, schedule: 'daily', webhookId: null, backfill: 0 });

      // Instance one's PATCH stops in its turn before its statements; instance two's change waits for the turn, and
      // commits once one's weekly row and schedule have.
      const held = holdNext();
      const weekly = monitors.update(workspaceId, id, { schedule: 'weekly' });
      const release = await held;
      const other = two.service.monitors.update(workspaceId, id, later);
      const seen = await finishedOrWaiting(other);
      release();
      await weekly;
      const answered = await other;

      const row = await two.service.monitors.get(workspaceId, id);
      expect(row).toMatchObject({ schedule: later.schedule ?? 'weekly', status: later.status ?? 'active' });
      const expected = left(row.updatedAt);
      expect(await schedulesOf(id)).toEqual(expected);
      expect(row.nextRunAt).toBe(expected[0]?.nextRunAt ?? null);
      expect(answered.nextRunAt).toBe(row.nextRunAt);
      expect(seen).toBe('waiting');
    });
  }

  it('leaves no schedule behind when a change of the other instance comes while a delete holds its turn', async () => {
    const { workspaceId } = await one.newKey({ scopes: ['monitors:write'] });
    const { monitors, holdNext } = holdingMonitors();
    const { id } = await monitors.create(workspaceId, { name: 'm', target: { kind: 'search', keywords: 'rust' }, schedule: 'daily', webhookId: null, backfill: 0 });

    // Instance one's delete holds its turn, its row and schedule not yet deleted; instance two's PATCH waits for the
    // turn, which it gets once the delete has committed: it finds no monitor, and schedules nothing.
    const held = holdNext();
    const removed = monitors.remove(workspaceId, id);
    const release = await held;
    const other = two.service.monitors.update(workspaceId, id, { schedule: 'weekly' });
    const seen = await finishedOrWaiting(other);
    release();
    expect(await removed).toEqual({ id, deleted: true });
    await expect(other).rejects.toMatchObject({ kind: 'not_found' });

    expect(await schedulesOf(id)).toEqual([]);
    await expect(two.service.monitors.get(workspaceId, id)).rejects.toMatchObject({ kind: 'not_found' });
    expect(seen).toBe('waiting');
  });
});
