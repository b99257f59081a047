import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlDbFromOrm } from '../../../adapters/db/sql.ts';
import { createMonitorService, type MonitorService } from '../../../adapters/monitors/monitor-service.ts';
import { createScheduleTurns, SCHEDULE_TURN_RULES } from '../../../adapters/monitors/schedule-turns.ts';
import { JOB } from '../../../jobs/jobs.ts';
import { injectFailure } from '../../support/injected-failure.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * A monitor's delete either completes (monitor and schedule gone) or changes nothing (monitor and its schedule as they
 * were), whichever of its steps fails: each case makes one step fail in the database itself and then checks both.
 */
let svc: TestService;
let monitors: MonitorService;
const postgres = process.env.TEST_DATABASE_URL !== undefined;
beforeAll(async () => {
  svc = await startTestService({ jobs: { autostart: false } });
  const db = sqlDbFromOrm(svc.service.orm);
  // A short lock timeout, so the case where the run lock is held fails in a fraction of a second.
  const turns = createScheduleTurns(db, { shared: svc.db.backend === 'postgresql', rules: { ...SCHEDULE_TURN_RULES, lockTimeoutMs: 300 } });
  monitors = createMonitorService({ db, scheduler: svc.service.jobs, turns, limits: (id) => svc.service.credits.limits(id), clock: () => new Date() });
});
afterAll(async () => {
  await svc?.close();
});

const sql = <T extends object>(statement: string, params: unknown[] = []) => svc.service.orm.em.getConnection().execute<T[]>(statement, params, 'all');

/** The monitor's row and its schedule's row, as the two stores hold them. */
async function stateOf(id: string) {
  const [monitor] = await sql<{ next_run_at: unknown; status: string }>(`select "next_run_at", "status" from "monitor" where "id" = ?`, [id]);
  const schedules = await sql<{ id: string; next_run_at: unknown; repeat_interval: unknown }>(
    `select "id", "next_run_at", "repeat_interval" from "agenda_jobs" where "name" = 'monitor.schedule' and "data"->>'monitorId' = ?`,
    [id],
  );
  const at = (value: unknown) => (value === null ? null : new Date(value as string).toISOString());
  return {
    monitor: monitor ? { nextRunAt: at(monitor.next_run_at), status: monitor.status } : null,
    schedules: schedules.map((row) => ({ id: row.id, nextRunAt: at(row.next_run_at), repeatInterval: String(row.repeat_interval) })),
  };
}

const failing = (name: string, table: string, when: string, deferred = false) => injectFailure(sql, name, table, 'delete', when, deferred);

/** Holds the lock a run takes to record its results, from a session of its own, until released. */
async function runLockHeld(id: string): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: svc.db.databaseUrl });
  await client.connect();
  await client.query(`begin`);
  await client.query(`select pg_advisory_xact_lock(hashtext('monitor-run:' || $1))`, [id]);
  return async () => {
    await client.query(`rollback`);
    await client.end();
  };
}

const cases: Array<{ step: string; postgresOnly?: boolean; inject: (id: string) => Promise<() => Promise<void>>; error: RegExp }> = [
  { step: 'waiting for the run lock', postgresOnly: true, inject: runLockHeld, error: /could not be brought up to date in time/ },
  { step: 'deleting the monitor row', inject: (id) => failing('fail_monitor_delete', 'monitor', `old.id = '${id}'`), error: /fail_monitor_delete/ },
  { step: 'removing the schedule', inject: (id) => failing('fail_schedule_delete', 'agenda_jobs', `old.data->>'monitorId' = '${id}'`), error: /fail_schedule_delete/ },
  { step: 'committing', inject: (id) => failing('fail_delete_commit', 'monitor', `old.id = '${id}'`, true), error: /fail_delete_commit/ },
];

describe('a failed monitor delete', () => {
  for (const { step, postgresOnly, inject, error } of cases) {
    it.skipIf(postgresOnly && !postgres)(`leaves the monitor and its schedule as they were when ${step} fails, and a retry deletes both`, async () => {
      const { workspaceId } = await svc.newKey({ scopes: ['monitors:write'] });
      const { id } = await monitors.create(workspaceId, { name: 'm', target: { kind: 'search', keywords: 'rust' }, schedule: 'daily', webhookId: null, backfill: 0 });
      const before = await stateOf(id);
      expect(before.schedules).toHaveLength(1);
      expect(before.monitor?.nextRunAt).toBe(before.schedules[0].nextRunAt);

      const restore = await inject(id);
      try {
        await expect(monitors.remove(workspaceId, id)).rejects.toThrow(error);
      } finally {
        await restore();
      }
      expect(await stateOf(id)).toEqual(before);

      expect(await monitors.remove(workspaceId, id)).toEqual({ id, deleted: true });
      expect(await stateOf(id)).toEqual({ monitor: null, schedules: [] });
    });
  }
});

describe('a schedule whose monitor is gone', () => {
  it('removes itself when it fires (what a delete leaves when a job store outside the database fails)', async () => {
    const { workspaceId } = await svc.newKey({ scopes: ['monitors:write'] });
    const { id } = await monitors.create(workspaceId, { name: 'm', target: { kind: 'search', keywords: 'rust' }, schedule: 'daily', webhookId: null, backfill: 0 });
    const { id: paused } = await monitors.create(workspaceId, { name: 'p', target: { kind: 'search', keywords: 'rust' }, schedule: 'daily', webhookId: null, backfill: 0 });
    await sql(`delete from "monitor" where "id" = ?`, [id]);
    // A paused monitor's schedule is not its to remove when it fires: only a monitor that is gone loses it.
    await sql(`update "monitor" set "status" = 'paused' where "id" = ?`, [paused]);

    // The schedule job's own handler, as a worker runs it when the schedule fires.
    const fire = svc.service.jobStore.agenda.definitions[JOB.monitorSchedule].fn as (job: unknown) => Promise<void>;
    for (const monitorId of [id, paused]) await fire({ attrs: { name: JOB.monitorSchedule, data: { monitorId }, nextRunAt: null } });

    expect((await stateOf(id)).schedules).toEqual([]);
    expect((await stateOf(paused)).schedules).toHaveLength(1);
  });
});
