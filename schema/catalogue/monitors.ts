import { z } from 'zod';
import { DeletedShape, MONITOR_SCHEDULES, MONITOR_STATUSES, MonitorResultShape, MonitorRunShape, MonitorShape, RunNowShape } from '../../adapters/shapes/monitor-shapes.ts';
import * as monitors from '../../resolvers/monitors/monitors.ts';
import { MonitorSourcesInput, MonitorTargetInput } from '../../adapters/monitors/monitor-targets.ts';
import { namingAChange } from './change-input.ts';
import { defineOperation, type BillingInput } from './operation.ts';

const READ = ['monitors:read'] as const;
const WRITE = ['monitors:write'] as const;
/** What every monitor operation shares: a key, free, weight 1 unless it says otherwise. */
const RESOURCE = { authentication: 'key', billing: { minimumCredits: 0, rateLimitWeight: 1 } as BillingInput, tag: 'Monitors' } as const;
/** Runs are charged when they execute, at the read operations' prices (docs/monitors.md, Money). */
const RUNS_CHARGED = 'the runs it queues are charged when they execute, by what they read, at the read operations’ prices';
const ID = z.uuid().describe('Monitor id (uuid).');
const LIMIT = z.int().min(1).max(100).default(25).describe('Items to return, 1 to 100 (default 25), newest first.');
const NAME = z.string().trim().min(1, 'must not be blank').max(120).describe('1 to 120 characters, not all spaces; leading and trailing spaces are removed.');
const SCHEDULE = z.enum(MONITOR_SCHEDULES).describe('`manual` (run-now only), `hourly` (tiers that include it), `daily` or `weekly`.');
const WEBHOOK_ID = z.uuid().nullable().describe('A webhook of this account that receives the results; null for none.');
const CRUD_ERRORS = [400, 401, 402, 403, 404, 429, 500] as const;
/** Stands for a monitor of the caller's: the catalogue walk creates one and puts its id here. */
export const EXAMPLE_MONITOR_ID = '00000000-0000-4000-8000-000000000000';

export const createMonitor = defineOperation({
  ...RESOURCE,
  operationId: 'createMonitor',
  description:
    'Creates a monitor: a saved query over one of seven target kinds that runs on its schedule and reports only items it has never seen. Its first run (queued at once) records what exists as the baseline, or reports the newest `backfill` items. 409 with `details.limit` at the tier’s monitor ceiling, or for `hourly` where the tier lacks it.',
  graphql: { kind: 'mutation', field: 'createMonitor' },
  rest: { method: 'POST', path: '/v1/monitors', successStatus: 201 },
  tool: 'create_monitor',
  scopes: WRITE,
  billing: { ...RESOURCE.billing, chargedLater: RUNS_CHARGED, queuedRun: monitors.runOfCreate },
  contentPlatforms: monitors.platformsOfMonitorChange,
  input: z.object({
    name: NAME,
    target: MonitorTargetInput,
    sources: MonitorSourcesInput.optional(),
    schedule: SCHEDULE.default('daily'),
    webhookId: WEBHOOK_ID.optional(),
    backfill: z.int().min(0).max(100).default(0).describe('Existing items the first run reports as results (newest first) instead of recording them silently; default 0.'),
  }),
  output: MonitorShape,
  resolve: monitors.createMonitor,
  errorStatuses: [400, 401, 402, 403, 404, 409, 429, 500],
  example: { name: 'Rust on the forum', target: { kind: 'search', keywords: 'rust' } },
});

export const updateMonitor = defineOperation({
  ...RESOURCE,
  operationId: 'updateMonitor',
  description:
    'Changes a monitor: any of `name`, `target`, `sources`, `schedule`, `webhookId`, `status`. `paused` and `archived` stop its schedule (run-now is then 409); `active` restarts it. A changed `target` or `sources` queues a run at once that records what the new target already holds as its baseline (reported as nothing new), keeping what the monitor has seen.',
  graphql: { kind: 'mutation', field: 'updateMonitor' },
  rest: { method: 'PATCH', path: '/v1/monitors/:id' },
  tool: 'update_monitor',
  scopes: WRITE,
  billing: { ...RESOURCE.billing, chargedLater: RUNS_CHARGED, queuedRun: monitors.runOfChange },
  contentPlatforms: monitors.platformsOfMonitorChange,
  input: namingAChange(z.object({
    id: ID,
    name: NAME.optional(),
    target: MonitorTargetInput.optional(),
    sources: MonitorSourcesInput.optional(),
    schedule: SCHEDULE.optional(),
    webhookId: WEBHOOK_ID.optional(),
    status: z.enum(MONITOR_STATUSES).optional().describe('`active`, `paused` or `archived`.'),
  })),
  output: MonitorShape,
  resolve: monitors.updateMonitor,
  errorStatuses: [400, 401, 402, 403, 404, 409, 429, 500],
  example: { id: EXAMPLE_MONITOR_ID, name: 'Rust, renamed' },
});

export const listMonitors = defineOperation({
  ...RESOURCE,
  operationId: 'listMonitors',
  description: 'The account’s monitors, newest first. No cursor: at most 100.',
  graphql: { kind: 'query', field: 'monitors' },
  rest: { method: 'GET', path: '/v1/monitors' },
  tool: 'list_monitors',
  scopes: READ,
  input: z.object({ limit: LIMIT }),
  output: z.array(MonitorShape),
  resolve: monitors.listMonitors,
  errorStatuses: [400, 401, 402, 403, 429, 500],
  example: {},
});

export const getMonitor = defineOperation({
  ...RESOURCE,
  operationId: 'getMonitor',
  description: 'One monitor of the account. 404 when there is no such monitor in this account.',
  graphql: { kind: 'query', field: 'monitor' },
  rest: { method: 'GET', path: '/v1/monitors/:id' },
  tool: 'get_monitor',
  scopes: READ,
  input: z.object({ id: ID }),
  output: MonitorShape,
  resolve: monitors.getMonitor,
  errorStatuses: CRUD_ERRORS,
  example: { id: EXAMPLE_MONITOR_ID },
});

export const deleteMonitor = defineOperation({
  ...RESOURCE,
  operationId: 'deleteMonitor',
  description: 'Deletes a monitor with its schedule, runs and results; a run in progress ends without reporting. 404 when there is no such monitor in this account.',
  graphql: { kind: 'mutation', field: 'deleteMonitor' },
  rest: { method: 'DELETE', path: '/v1/monitors/:id' },
  tool: 'delete_monitor',
  scopes: WRITE,
  input: z.object({ id: ID }),
  output: DeletedShape,
  resolve: monitors.deleteMonitor,
  errorStatuses: [400, 401, 402, 403, 404, 409, 429, 500],
  example: { id: EXAMPLE_MONITOR_ID },
});

export const listMonitorRuns = defineOperation({
  ...RESOURCE,
  operationId: 'listMonitorRuns',
  description: 'A monitor’s runs, newest first: status, items found, new results, credits used, error summary. No cursor.',
  graphql: { kind: 'query', field: 'monitorRuns' },
  rest: { method: 'GET', path: '/v1/monitors/:id/runs' },
  tool: 'list_monitor_runs',
  scopes: READ,
  input: z.object({ id: ID, limit: LIMIT }),
  output: z.array(MonitorRunShape),
  resolve: monitors.listMonitorRuns,
  errorStatuses: CRUD_ERRORS,
  example: { id: EXAMPLE_MONITOR_ID },
});

export const listMonitorResults = defineOperation({
  ...RESOURCE,
  operationId: 'listMonitorResults',
  description: 'What a monitor found that it had never seen before, newest first. No cursor.',
  graphql: { kind: 'query', field: 'monitorResults' },
  rest: { method: 'GET', path: '/v1/monitors/:id/results' },
  tool: 'list_monitor_results',
  scopes: READ,
  contentPlatforms: monitors.platformsOfMonitorResults,
  input: z.object({ id: ID, limit: LIMIT }),
  output: z.array(MonitorResultShape),
  resolve: monitors.listMonitorResults,
  errorStatuses: CRUD_ERRORS,
  example: { id: EXAMPLE_MONITOR_ID },
});

export const runMonitor = defineOperation({
  ...RESOURCE,
  operationId: 'runMonitor',
  description:
    'Queues a run now and returns at once (202). Idempotent while a run is queued: the same `jobId` comes back. 409 while the monitor is paused or archived.',
  graphql: { kind: 'mutation', field: 'runMonitor' },
  rest: { method: 'POST', path: '/v1/monitors/:id/run', successStatus: 202 },
  tool: 'run_monitor',
  scopes: WRITE,
  billing: { minimumCredits: 0, rateLimitWeight: 4, chargedLater: RUNS_CHARGED, queuedRun: monitors.runOfRunNow },
  input: z.object({ id: ID }),
  output: RunNowShape,
  resolve: monitors.runMonitor,
  errorStatuses: [400, 401, 402, 403, 404, 409, 429, 500],
  example: { id: EXAMPLE_MONITOR_ID },
});
