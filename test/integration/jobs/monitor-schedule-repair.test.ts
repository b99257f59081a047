import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../../../adapters/logging/logger.ts';
import type { MonitorInput } from '../../../adapters/monitors/monitor-service.ts';
import { JOB } from '../../../jobs/jobs.ts';
import { manualClock } from '../billing/billing-fixture.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * Housekeeping schedules again an active monitor whose schedule is missing (left by an earlier version's failed create
 * or delete, or a job store outside the database failing) or repeats at another interval than its row's (a schedule
 * change whose job-store step failed), and touches nothing else.
 */
const START = '2026-03-02T10:00:00.000Z';
const DAY = 86_400_000;
const clock = manualClock(START);
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ now: clock.now, jobs: { autostart: false }, tiers: { free: { maxMonitors: 10 } } });
});
afterAll(async () => {
  await svc?.close();
});

const sql = <T extends object>(statement: string, params: unknown[] = []) => svc.service.orm.em.getConnection().execute<T[]>(statement, params, 'all');
const at = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string).toISOString());

/** The monitor's nextRunAt and its schedules, as the two stores hold them. */
async function stateOf(id: string) {
  const [monitor] = await sql<{ next_run_at: unknown }>(`select "next_run_at" from "monitor" where "id" = ?`, [id]);
  const schedules = await sql<{ next_run_at: unknown; repeat_interval: unknown }>(
    `select "next_run_at", "repeat_interval" from "agenda_jobs" where "name" = 'monitor.schedule' and "data"->>'monitorId' = ?`,
    [id],
  );
  return { nextRunAt: at(monitor.next_run_at), schedules: schedules.map((row) => ({ nextRunAt: at(row.next_run_at), every: Number(row.repeat_interval) / DAY })) };
}

/** Housekeeping as a worker runs it every minute. */
const housekeeping = () => (svc.service.jobStore.agenda.definitions[JOB.housekeeping].fn as (job: unknown) => Promise<void>)({ attrs: { name: JOB.housekeeping } });

const daily: MonitorInput = { name: 'm', target: { kind: 'search', keywords: 'rust' }, schedule: 'daily', webhookId: null, backfill: 0 };

describe('housekeeping’s repair of monitor schedules', () => {
  it('schedules an active monitor without its schedule, or with one of another interval, at its next firing; leaves the rest', async () => {
    const { workspaceId } = await svc.newKey({ scopes: ['monitors:write'] });
    const monitors = svc.service.monitors;
    const lost = (await monitors.create(workspaceId, daily)).id;
    const changed = (await monitors.create(workspaceId, daily)).id;
    const intact = (await monitors.create(workspaceId, daily)).id;
    const manual = (await monitors.create(workspaceId, { ...daily, schedule: 'manual' })).id;
    const paused = (await monitors.create(workspaceId, daily)).id;
    await monitors.update(workspaceId, paused, { status: 'paused' });
    // What the earlier version's failed create or delete left: an active monitor whose schedule is gone.
    await sql(`delete from "agenda_jobs" where "name" = 'monitor.schedule' and "data"->>'monitorId' = ?`, [lost]);
    // A change to weekly whose job-store step failed: the row says weekly, the schedule still repeats daily.
    await sql(`update "monitor" set "schedule" = 'weekly' where "id" = ?`, [changed]);
    const before = { intact: await stateOf(intact), manual: await stateOf(manual), paused: await stateOf(paused) };
    expect(before.intact.schedules).toHaveLength(1);

    clock.advance(3.5 * DAY);
    const warn = vi.spyOn(logger, 'warn');
    try {
      await housekeeping();
      // The next firing on the monitor's own grid (one day, then each day, after its change), not at once in the past.
      const fourDaysOn = new Date(Date.parse(START) + 4 * DAY).toISOString();
      expect(await stateOf(lost)).toEqual({ nextRunAt: fourDaysOn, schedules: [{ nextRunAt: fourDaysOn, every: 1 }] });
      const weekOn = new Date(Date.parse(START) + 7 * DAY).toISOString();
      expect(await stateOf(changed)).toEqual({ nextRunAt: weekOn, schedules: [{ nextRunAt: weekOn, every: 7 }] });
      expect(await stateOf(intact)).toEqual(before.intact);
      expect(await stateOf(manual)).toEqual({ nextRunAt: null, schedules: [] });
      expect(await stateOf(paused)).toEqual({ nextRunAt: null, schedules: [] });

      const repaired = warn.mock.calls.filter(([, message]) => /schedule repaired/.test(String(message))).map(([fields]) => fields);
      expect(repaired).toEqual([
        expect.objectContaining({ monitorId: lost, schedule: 'daily', found: null }),
        expect.objectContaining({ monitorId: changed, schedule: 'weekly', found: 'daily' }),
      ]);

      // Nothing left to repair.
      warn.mockClear();
      await housekeeping();
      expect(warn.mock.calls.filter(([, message]) => /schedule repaired/.test(String(message)))).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });

  it('does not touch a schedule a change saved after the monitor was listed: it looks again in the monitor’s turn', async () => {
    const { workspaceId } = await svc.newKey({ scopes: ['monitors:write'] });
    const { id } = await svc.service.monitors.create(workspaceId, daily);
    await sql(`delete from "agenda_jobs" where "name" = 'monitor.schedule' and "data"->>'monitorId' = ?`, [id]);
    clock.advance(DAY / 2);
    // Listed without its schedule; before the repair's turn, a change of the monitor (in its own turn) schedules it.
    const jobs = svc.service.jobs;
    const listed = vi.spyOn(jobs, 'schedulesOf').mockImplementationOnce(async (ids) => {
      const held = await jobs.schedulesOf(ids);
      await svc.service.monitors.update(workspaceId, id, { schedule: 'weekly' });
      return held;
    });
    try {
      expect(await svc.service.monitors.repairSchedules()).not.toContainEqual(expect.objectContaining({ monitorId: id }));
      const after = await svc.service.monitors.get(workspaceId, id);
      expect(after.schedule).toBe('weekly');
      const state = await stateOf(id);
      expect(state.schedules).toEqual([{ nextRunAt: state.nextRunAt, every: 7 }]);
      expect(state.nextRunAt).toBe(new Date(Date.parse(after.updatedAt) + 7 * DAY).toISOString());
    } finally {
      listed.mockRestore();
    }
  });
});
