import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlDbFromOrm } from '../../../adapters/db/sql.ts';
import { createMonitorService } from '../../../adapters/monitors/monitor-service.ts';
import { createScheduleTurns, type ScheduleTurns } from '../../../adapters/monitors/schedule-turns.ts';
import { startTestService, type TestService } from '../../support/service.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ jobs: { autostart: false } });
});
afterAll(async () => {
  await svc?.close();
});

/** The monitor's turns, except that one change can be held back on its way to them until released. */
function holdingTurns(turns: ScheduleTurns) {
  let hold: { reached: () => void; released: Promise<void> } | undefined;
  return {
    turns: {
      async take(monitorId, work) {
        const held = hold;
        hold = undefined;
        if (held) {
          held.reached();
          await held.released;
        }
        return turns.take(monitorId, work);
      },
    } satisfies ScheduleTurns,
    /** Holds the next change back; resolves once it is held, with the function that lets it go on. */
    holdNext(): Promise<() => void> {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      return new Promise((reached) => (hold = { reached: () => reached(release), released }));
    },
  };
}

describe('a monitor’s schedule after two changes race', () => {
  it('is the latest row’s, even when the earlier change reaches its turn last', async () => {
    const { workspaceId } = await svc.newKey({ scopes: ['monitors:write'] });
    const db = sqlDbFromOrm(svc.service.orm);
    const { turns, holdNext } = holdingTurns(createScheduleTurns(db, { shared: svc.db.backend === 'postgresql' }));
    const monitors = createMonitorService({ db, scheduler: svc.service.jobs, turns, limits: (id) => svc.service.credits.limits(id), clock: () => new Date() });
    const { id } = await monitors.create(workspaceId, { name: 'm', target: { kind: 'search', keywords: 'rust' }, schedule: 'daily', webhookId: null, backfill: 0 });

    // The first PATCH (weekly) is held on its way to its turn while a second one pauses the monitor; then it changes
    // the paused row, which keeps no schedule.
    const held = holdNext();
    const weekly = monitors.update(workspaceId, id, { schedule: 'weekly' });
    const release = await held;
    await monitors.update(workspaceId, id, { status: 'paused' });
    release();
    await weekly;

    const schedules = await svc.service.orm.em
      .getConnection()
      .execute(`select "id" from "agenda_jobs" where "name" = 'monitor.schedule' and "data"->>'monitorId' = ?`, [id], 'all');
    expect(schedules).toEqual([]);
    expect(await monitors.get(workspaceId, id)).toMatchObject({ status: 'paused', schedule: 'weekly', nextRunAt: null });
  });
});
