import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedWorkspace } from '../support/billing.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { finishedRuns, until } from './monitor-support.ts';

let svc: TestService;
let key: string;
/** The service's clock runs this far ahead of the real one: a test moves it instead of waiting. */
let offsetMs = 0;
/** Or stands still at this time, for a comparison that must not depend on how long a step takes. */
let frozenAt: Date | null = null;

beforeAll(async () => {
  svc = await startTestService({ now: () => frozenAt ?? new Date(Date.now() + offsetMs), tiers: { free: { maxMonitors: 30, rateLimitPerMinute: 100_000 } }, jobs: { processEvery: 100 } });
  ({ key } = await svc.newKey({ scopes: ['read:social', 'monitors:write'] }));
});
afterAll(async () => {
  await svc?.close();
});

async function patch(id: string, body: Record<string, unknown>, as = key) {
  return svc.request('PATCH', `/v1/monitors/${id}`, { key: as, body });
}

async function create(body: Record<string, unknown>, as = key) {
  const res = await svc.request('POST', '/v1/monitors', { key: as, body: { name: 'm', target: { kind: 'search', keywords: 'rust' }, sources: ['forum'], ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { id: string; nextRunAt: string };
}

/** Makes the monitor's schedule due now and waits until the job store has fired it once more. */
async function fire(id: string) {
  const connection = svc.service.orm.em.getConnection();
  const finished = async () =>
    (await connection.execute<{ at: Date | null }[]>(`select "last_finished_at" as "at" from "agenda_jobs" where "name" = 'monitor.schedule' and "data"->>'monitorId' = ?`, [id], 'all'))[0]?.at;
  const before = await finished();
  await connection.execute(`update "agenda_jobs" set "next_run_at" = now() where "name" = 'monitor.schedule' and "data"->>'monitorId' = ?`, [id]);
  await until(async () => ({ status: 200, body: await finished(), headers: new Headers() }), (at) => at !== null && at !== undefined && String(at) !== String(before));
}

describe('a PATCH that leaves schedule and status as they were', () => {
  it('keeps the next run where it was; a real change of either moves it', async () => {
    const monitor = await create({ schedule: 'daily' });
    offsetMs += 3_600_000;
    for (const body of [{ status: 'active' }, { schedule: 'daily' }, { schedule: 'daily', status: 'active', name: 'renamed' }]) {
      const res = await patch(monitor.id, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.nextRunAt, JSON.stringify(body)).toBe(monitor.nextRunAt);
    }
    const weekly = (await patch(monitor.id, { schedule: 'weekly' })).body.data;
    expect(Date.parse(weekly.nextRunAt) - Date.parse(weekly.updatedAt)).toBe(7 * 86_400_000);
    await patch(monitor.id, { status: 'paused' });
    offsetMs += 3_600_000;
    const resumed = (await patch(monitor.id, { status: 'active' })).body.data;
    expect(Date.parse(resumed.nextRunAt) - Date.parse(resumed.updatedAt)).toBe(7 * 86_400_000);
    expect(resumed.nextRunAt).not.toBe(weekly.nextRunAt);
  });
});

describe('an hourly monitor after its tier loses hourly schedules', () => {
  it('cannot be resumed or kept hourly by a PATCH (409 hourlySchedules), runs at most once a day, and can be made daily', async () => {
    const { workspaceId } = await fundedWorkspace(svc, 1_000, 500);
    const { key: own } = await svc.newKey({ workspaceId, scopes: ['read:social', 'monitors:write'] });
    const monitor = await create({ schedule: 'hourly' }, own);
    await finishedRuns(svc, own, monitor.id, 1);
    const paused = await create({ schedule: 'hourly' }, own);
    await finishedRuns(svc, own, paused.id, 1);
    expect((await patch(paused.id, { status: 'paused' }, own)).status).toBe(200);

    expect((await svc.operator('POST', `/operator/workspaces/${workspaceId}/refunds`, { usdCents: 500, credits: 1 })).status).toBe(201);
    expect((await svc.request('GET', '/v1/limits', { key: own })).body.data).toMatchObject({ tier: 'free', hourlySchedules: false });

    for (const [id, body] of [[paused.id, { status: 'active' }], [monitor.id, { status: 'active' }], [monitor.id, { schedule: 'hourly' }], [paused.id, { schedule: 'hourly' }]] as const) {
      const refused = await patch(id, body, own);
      expect(refused.status, JSON.stringify(body)).toBe(409);
      expect(refused.body.error.details).toMatchObject({ limit: 'hourlySchedules', tier: 'free' });
    }
    expect((await svc.request('GET', `/v1/monitors/${paused.id}`, { key: own })).body.data).toMatchObject({ status: 'paused', nextRunAt: null });
    // A change that asks nothing of the schedule still goes through.
    expect((await patch(monitor.id, { name: 'kept hourly' }, own)).status).toBe(200);

    // The creation's baseline run (manual, like run-now) does not count: its first firing runs; the next ones are
    // skipped until the 24th hourly firing after it, though that run was queued a little after its firing.
    const runs = async () => (await svc.request('GET', `/v1/monitors/${monitor.id}/runs`, { key: own })).body.data as Array<{ createdAt: string }>;
    await fire(monitor.id);
    await finishedRuns(svc, own, monitor.id, 2);
    const [scheduled] = await runs();
    const firedAt = Date.parse(scheduled.createdAt) - 50;
    const hour = 3_600_000;
    try {
      for (const [at, count] of [[firedAt + hour + 10, 2], [firedAt + 23 * hour + 10, 2], [firedAt + 24 * hour + 10, 3], [firedAt + 25 * hour + 10, 3]] as const) {
        frozenAt = new Date(at);
        await fire(monitor.id);
        expect(await runs(), `firing at +${(at - firedAt - 10) / hour} h`).toHaveLength(count);
      }
      await finishedRuns(svc, own, monitor.id, 3);
      await svc.request('POST', `/v1/monitors/${monitor.id}/run`, { key: own });
      await finishedRuns(svc, own, monitor.id, 4);
      frozenAt = new Date(firedAt + 48 * hour + 10);
      await fire(monitor.id);
      expect(await runs(), 'firing at +48 h after a run-now at +25 h').toHaveLength(5);
    } finally {
      offsetMs = frozenAt!.getTime() - Date.now();
      frozenAt = null;
    }

    const daily = await patch(monitor.id, { schedule: 'daily' }, own);
    expect(daily.status).toBe(200);
    expect(daily.body.data.schedule).toBe('daily');
    expect((await patch(paused.id, { status: 'active', schedule: 'weekly' }, own)).body.data).toMatchObject({ status: 'active', schedule: 'weekly' });
  });
});
