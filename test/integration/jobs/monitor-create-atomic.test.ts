import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sqlDbFromOrm } from '../../../adapters/db/sql.ts';
import { logger } from '../../../adapters/logging/logger.ts';
import { createMonitorService, type MonitorInput, type MonitorScheduler, type MonitorService } from '../../../adapters/monitors/monitor-service.ts';
import { createScheduleTurns } from '../../../adapters/monitors/schedule-turns.ts';
import { injectFailure } from '../../support/injected-failure.ts';
import { startTestService, type TestService } from '../../support/service.ts';

/**
 * A monitor's create either completes (the monitor, its schedule and its first run) or creates nothing, whichever of
 * its steps fails: each case makes one step fail (in the database itself where it can) and then looks at all three.
 */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ jobs: { autostart: false } });
});
afterAll(async () => {
  await svc?.close();
});

const sql = <T extends object>(statement: string, params: unknown[] = []) => svc.service.orm.em.getConnection().execute<T[]>(statement, params, 'all');

/** The service's monitors on another scheduler (the service's own jobs, changed where a case says). */
function monitorsOn(scheduler: MonitorScheduler): MonitorService {
  const db = sqlDbFromOrm(svc.service.orm);
  const turns = createScheduleTurns(db, { shared: svc.db.backend === 'postgresql' });
  return createMonitorService({ db, scheduler, turns, limits: (id) => svc.service.credits.limits(id), clock: () => new Date() });
}

/** The service's jobs as they are: the schedule is saved in the create's own transaction (PostgreSQL, PGlite). */
const inDatabase = () => svc.service.jobs;
/** The service's jobs as if they lived in MongoDB: the schedule is saved once the row has committed. */
const elsewhere = (): MonitorScheduler => ({ ...svc.service.jobs, scheduleWithin: async () => false, unscheduleWithin: async () => false });

/** A workspace's monitors, their schedules and their runs, as the two stores hold them. */
async function stateOf(workspaceId: string) {
  const monitors = await sql<{ id: string; next_run_at: unknown }>(`select "id", "next_run_at" from "monitor" where "workspace_id" = ?`, [workspaceId]);
  const ids = monitors.map((row) => row.id);
  const schedules = ids.length
    ? await sql<{ monitor_id: string; next_run_at: unknown }>(
        `select "data"->>'monitorId' as "monitor_id", "next_run_at" from "agenda_jobs" where "name" = 'monitor.schedule' and "data"->>'monitorId' in (${ids.map(() => '?').join(', ')})`,
        ids,
      )
    : [];
  const runs = ids.length ? await sql<{ status: string }>(`select "status" from "monitor_run" where "monitor_id" in (${ids.map(() => '?').join(', ')})`, ids) : [];
  const at = (value: unknown) => (value === null ? null : new Date(value as string).toISOString());
  return {
    monitors: monitors.map((row) => ({ id: row.id, nextRunAt: at(row.next_run_at) })),
    schedules: schedules.map((row) => ({ id: row.monitor_id, nextRunAt: at(row.next_run_at) })),
    runs: runs.map((row) => row.status),
  };
}

/** All schedule rows, whichever monitor: a failed create must not leave one behind for a monitor that is gone. */
async function scheduleCount(): Promise<number> {
  const [row] = await sql<{ n: unknown }>(`select count(*) as "n" from "agenda_jobs" where "name" = 'monitor.schedule'`);
  return Number(row.n);
}

const failing = (name: string, table: string, event: 'insert' | 'update', when: string, deferred = false) => injectFailure(sql, name, table, event, when, deferred);

const input: MonitorInput = { name: 'm', target: { kind: 'search', keywords: 'rust' }, schedule: 'daily', webhookId: null, backfill: 0 };

/** Created whole: one monitor, its schedule at the monitor's nextRunAt, one day after its creation, and its first run queued. */
async function expectCreatedWhole(workspaceId: string, id: string) {
  const state = await stateOf(workspaceId);
  expect(state.monitors).toHaveLength(1);
  expect(state.monitors[0].id).toBe(id);
  expect(state.schedules).toEqual([{ id, nextRunAt: state.monitors[0].nextRunAt }]);
  expect(state.runs).toEqual(['queued']);
}

const cases: Array<{ step: string; scheduler: () => MonitorScheduler; inject: () => Promise<() => Promise<void>>; error: RegExp }> = [
  { step: 'saving the schedule', scheduler: inDatabase, inject: () => failing('fail_schedule_insert', 'agenda_jobs', 'insert', `new.name = 'monitor.schedule'`), error: /fail_schedule_insert/ },
  { step: 'queueing the first run', scheduler: inDatabase, inject: () => failing('fail_run_insert', 'monitor_run', 'insert', 'true'), error: /fail_run_insert/ },
  { step: 'committing', scheduler: inDatabase, inject: () => failing('fail_create_commit', 'agenda_jobs', 'insert', `new.name = 'monitor.schedule'`, true), error: /fail_create_commit/ },
  {
    step: 'saving the schedule, the job store elsewhere',
    scheduler: elsewhere,
    inject: () => failing('fail_schedule_insert', 'agenda_jobs', 'insert', `new.name = 'monitor.schedule'`),
    error: /fail_schedule_insert/,
  },
  { step: 'recording nextRunAt, the job store elsewhere', scheduler: elsewhere, inject: () => failing('fail_record', 'monitor', 'update', 'true'), error: /fail_record/ },
];

describe('a failed monitor create', () => {
  for (const { step, scheduler, inject, error } of cases) {
    it(`creates nothing when ${step} fails, and a retry creates it whole`, async () => {
      const monitors = monitorsOn(scheduler());
      const { workspaceId } = await svc.newKey({ scopes: ['monitors:write'] });
      const schedules = await scheduleCount();

      const restore = await inject();
      try {
        await expect(monitors.create(workspaceId, input)).rejects.toThrow(error);
      } finally {
        await restore();
      }
      expect(await stateOf(workspaceId)).toEqual({ monitors: [], schedules: [], runs: [] });
      expect(await scheduleCount()).toBe(schedules);

      const { id, createdAt, nextRunAt } = await monitors.create(workspaceId, input);
      expect(nextRunAt).toBe(new Date(Date.parse(createdAt) + 86_400_000).toISOString());
      await expectCreatedWhole(workspaceId, id);
    });
  }

  it('is created when only handing its first run to a worker fails: the run stays queued for housekeeping to hand over', async () => {
    const monitors = monitorsOn({
      ...svc.service.jobs,
      enqueueRun: async () => {
        throw new Error('injected failure: job store unavailable');
      },
    });
    const { workspaceId } = await svc.newKey({ scopes: ['monitors:write'] });
    const warn = vi.spyOn(logger, 'warn');
    try {
      const { id } = await monitors.create(workspaceId, input);
      await expectCreatedWhole(workspaceId, id);
      expect(warn).toHaveBeenCalledWith(expect.objectContaining({ monitorId: id }), expect.stringMatching(/first run/));
    } finally {
      warn.mockRestore();
    }
  });
});

describe('a create sent again with its Idempotency-Key after it failed', () => {
  it('creates one monitor, and its replay answers it', async () => {
    const { key, workspaceId } = await svc.newKey({ scopes: ['read:social', 'monitors:write', 'monitors:read'] });
    const send = () => svc.request('POST', '/v1/monitors', { key, body: input, headers: { 'idempotency-key': 'create-once' } });

    const restore = await failing('fail_schedule_insert', 'agenda_jobs', 'insert', `new.name = 'monitor.schedule'`);
    let failed;
    try {
      failed = await send();
    } finally {
      await restore();
    }
    // A 5xx frees the key: the same request runs again.
    expect(failed.status).toBeGreaterThanOrEqual(500);

    const created = await send();
    expect(created.status).toBe(201);
    const replayed = await send();
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.data).toEqual(created.body.data);
    await expectCreatedWhole(workspaceId, created.body.data.id);
  });
});
