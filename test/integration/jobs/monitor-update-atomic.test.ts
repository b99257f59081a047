import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlDbFromOrm } from '../../../adapters/db/sql.ts';
import { createMonitorService, type MonitorPatch, type MonitorService } from '../../../adapters/monitors/monitor-service.ts';
import { createScheduleTurns } from '../../../adapters/monitors/schedule-turns.ts';
import { injectFailure } from '../../support/injected-failure.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * A PATCH that changes a monitor's schedule or status either completes (the row and its schedule both changed) or
 * changes nothing (both as they were), whichever of its steps fails: each case makes one step fail in the database
 * itself, then looks at both, then retries.
 */
let svc: TestService;
let monitors: MonitorService;
beforeAll(async () => {
  svc = await startTestService({ jobs: { autostart: false } });
  const db = sqlDbFromOrm(svc.service.orm);
  const turns = createScheduleTurns(db, { shared: svc.db.backend === 'postgresql' });
  monitors = createMonitorService({ db, scheduler: svc.service.jobs, turns, limits: (id) => svc.service.credits.limits(id), clock: () => new Date() });
});
afterAll(async () => {
  await svc?.close();
});

const sql = <T extends object>(statement: string, params: unknown[] = []) => svc.service.orm.em.getConnection().execute<T[]>(statement, params, 'all');

/** The monitor's row and its schedule's row, as the two stores hold them. */
async function stateOf(id: string) {
  const [monitor] = await sql<{ next_run_at: unknown; status: string; schedule: string }>(`select "next_run_at", "status", "schedule" from "monitor" where "id" = ?`, [id]);
  const schedules = await sql<{ next_run_at: unknown; repeat_interval: unknown }>(
    `select "next_run_at", "repeat_interval" from "agenda_jobs" where "name" = 'monitor.schedule' and "data"->>'monitorId' = ?`,
    [id],
  );
  const at = (value: unknown) => (value === null ? null : new Date(value as string).toISOString());
  return {
    monitor: { schedule: monitor.schedule, status: monitor.status, nextRunAt: at(monitor.next_run_at) },
    schedules: schedules.map((row) => ({ nextRunAt: at(row.next_run_at), repeatInterval: Number(row.repeat_interval) })),
  };
}

const failing = (name: string, table: string, event: 'insert' | 'update' | 'delete', when: string, deferred = false) => injectFailure(sql, name, table, event, when, deferred);

const DAY_MS = 86_400_000;
const onMonitor = (id: string) => `old.id = '${id}'`;
const onSchedule = (id: string, row: 'old' | 'new') => `${row}.name = 'monitor.schedule' and ${row}.data->>'monitorId' = '${id}'`;

const cases: Array<{ change: string; from?: MonitorPatch; patch: MonitorPatch; step: string; inject: (id: string) => Promise<() => Promise<void>>; after: (changedAt: number) => object }> = [
  ...[
    { step: 'updating the monitor row', inject: (id: string) => failing('fail_monitor_update', 'monitor', 'update', onMonitor(id)) },
    { step: 'changing the schedule', inject: (id: string) => failing('fail_schedule_update', 'agenda_jobs', 'update', onSchedule(id, 'old')) },
    // At the commit, and on the schedule's row: the row and its schedule are one commit (before, two).
    { step: 'committing', inject: (id: string) => failing('fail_update_commit', 'agenda_jobs', 'update', onSchedule(id, 'old'), true) },
  ].map((step) => ({
    change: 'daily to weekly',
    patch: { schedule: 'weekly' } as MonitorPatch,
    ...step,
    after: (changedAt: number) => ({ monitor: { schedule: 'weekly', status: 'active' }, schedules: [{ repeatInterval: 7 * DAY_MS, nextRunAt: new Date(changedAt + 7 * DAY_MS).toISOString() }] }),
  })),
  {
    change: 'pausing',
    patch: { status: 'paused' },
    step: 'removing the schedule',
    inject: (id) => failing('fail_schedule_delete', 'agenda_jobs', 'delete', onSchedule(id, 'old')),
    after: () => ({ monitor: { schedule: 'daily', status: 'paused' }, schedules: [] }),
  },
  {
    change: 'resuming',
    from: { status: 'paused' },
    patch: { status: 'active' },
    step: 'saving the schedule',
    inject: (id) => failing('fail_schedule_insert', 'agenda_jobs', 'insert', onSchedule(id, 'new')),
    after: (changedAt) => ({ monitor: { schedule: 'daily', status: 'active' }, schedules: [{ repeatInterval: DAY_MS, nextRunAt: new Date(changedAt + DAY_MS).toISOString() }] }),
  },
];

describe('a failed monitor PATCH of its schedule or status', () => {
  for (const { change, from, patch, step, inject, after } of cases) {
    it(`${change}: leaves the monitor and its schedule as they were when ${step} fails, and a retry changes both`, async () => {
      const { workspaceId } = await svc.newKey({ scopes: ['monitors:write'] });
      const { id } = await monitors.create(workspaceId, { name: 'm', target: { kind: 'search', keywords: 'rust' }, schedule: 'daily', webhookId: null, backfill: 0 });
      if (from) await monitors.update(workspaceId, id, from);
      const before = await stateOf(id);

      const restore = await inject(id);
      try {
        await expect(monitors.update(workspaceId, id, patch)).rejects.toThrow(/injected failure/);
      } finally {
        await restore();
      }
      // Before: the row's change committed first and the schedule's came after it, so the failure left the row changed.
      expect(await stateOf(id)).toEqual(before);

      const changed = await monitors.update(workspaceId, id, patch);
      const now = await stateOf(id);
      expect(now).toMatchObject(after(new Date(changed.updatedAt).getTime()));
      expect(now.monitor.nextRunAt).toBe(now.schedules[0]?.nextRunAt ?? null);
      expect(changed.nextRunAt ?? null).toBe(now.monitor.nextRunAt);
    });
  }
});
