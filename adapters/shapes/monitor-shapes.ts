import { z } from 'zod';

/** The spec's Monitor, Monitor run and Monitor result, in the service's own field names. */

export const MONITOR_SCHEDULES = ['manual', 'hourly', 'daily', 'weekly'] as const;
export const MONITOR_STATUSES = ['active', 'paused', 'archived'] as const;
export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'skipped'] as const;

export const MonitorShape = z
  .object({
    id: z.uuid().describe('Monitor id.'),
    name: z.string().min(1).max(120).describe('1 to 120 characters.'),
    target: z.record(z.string(), z.unknown()).describe('What the monitor watches: one of seven target kinds (see `kind`), identifiers normalised.'),
    sources: z.array(z.string()).describe('Platforms the monitor reads: `forum`, `microblog`.'),
    schedule: z.enum(MONITOR_SCHEDULES).describe('`manual` (run-now only), `hourly`, `daily` or `weekly`.'),
    status: z.enum(MONITOR_STATUSES).describe('`active`, `paused` or `archived`; only active monitors run.'),
    webhookId: z.uuid().nullable().describe('Webhook that receives this monitor’s results; null for none.'),
    lastRunAt: z.iso.datetime().nullable().describe('When the last run finished; null before the first.'),
    nextRunAt: z.iso.datetime().nullable().describe('When the next scheduled run is due; null for manual, paused or archived monitors.'),
    createdAt: z.iso.datetime().describe('When the monitor was created.'),
    updatedAt: z.iso.datetime().describe('When the monitor was last changed.'),
  })
  .meta({ id: 'Monitor' })
  .describe('A saved query that runs on a schedule and reports only what is new.');

export const MonitorRunShape = z
  .object({
    id: z.uuid().describe('Run id.'),
    monitorId: z.uuid().describe('The monitor.'),
    status: z.enum(RUN_STATUSES).describe('`queued`, `running`, `succeeded`, `failed` or `skipped` (see docs/monitors.md).'),
    startedAt: z.iso.datetime().nullable().describe('When a worker started it; null while queued.'),
    finishedAt: z.iso.datetime().nullable().describe('When it ended; null while queued or running.'),
    resultsFound: z.int().min(0).describe('Items the run read from the platforms, each priced: `newResults` plus every count in `suppressed`.'),
    newResults: z.int().min(0).describe('Items never seen by this monitor before, reported as results.'),
    creditsUsed: z.int().min(0).describe('Credits charged for what the run read, at the read operations’ prices.'),
    suppressed: z
      .object({
        seenId: z.int().min(0).describe('Seen before under its own id (an edit, a re-read).'),
        seenLink: z.int().min(0).describe('Stands for an item seen before: a repost’s original, a crosspost’s parent, an edit’s first version.'),
        seenContent: z.int().min(0).describe('Its text was seen before (content fingerprint).'),
        duplicateInRun: z.int().min(0).describe('An earlier item of the same run stands for it.'),
        filtered: z.int().min(0).describe('Read (and priced) but left out by the local checks: it does not match the keywords, or a `forum_user` search returned another author’s post.'),
        baseline: z.int().min(0).describe('New, but recorded silently as the first run’s baseline.'),
      })
      .meta({ id: 'MonitorRunSuppressed' })
      .describe('Items read but not reported, by reason.'),
    errorSummary: z.string().nullable().describe('Why the run failed or was skipped; null otherwise.'),
    createdAt: z.iso.datetime().describe('When the run was queued.'),
  })
  .meta({ id: 'MonitorRun' })
  .describe('One run of a monitor.');

export const MonitorResultShape = z
  .object({
    id: z.uuid().describe('Result id.'),
    monitorId: z.uuid().describe('The monitor that found it.'),
    itemType: z.enum(['post', 'comment']).describe('`comment` for a thread watch, `post` for every other kind.'),
    source: z.string().describe('Platform: `forum` or `microblog`.'),
    externalId: z.string().nullable().describe('The item’s id on its platform.'),
    url: z.string().describe('Link to the item.'),
    title: z.string().nullable().describe('Title (forum posts); null otherwise.'),
    body: z.string().nullable().describe('Text of the item.'),
    authorHandle: z.string().nullable().describe('Author’s username, without `u/` or `@`.'),
    communityName: z.string().nullable().describe('Forum community, without `r/`; null on the microblog.'),
    firstSeenAt: z.iso.datetime().describe('When the monitor first saw it.'),
  })
  .meta({ id: 'MonitorResult' })
  .describe('An item a monitor found that it had never seen before.');

export const RunNowShape = z
  .object({
    jobId: z.string().describe('The queued run’s id (also its id in the run history).'),
    queued: z.boolean().describe('Always true: a run is queued, this one or one already waiting.'),
  })
  .meta({ id: 'MonitorRunQueued' })
  .describe('A run queued by run-now.');

export const DeletedShape = z
  .object({ id: z.uuid().describe('Id of what was deleted.'), deleted: z.boolean().describe('Always true.') })
  .meta({ id: 'Deleted' })
  .describe('What was deleted.');

export type Monitor = z.infer<typeof MonitorShape>;
export type MonitorRun = z.infer<typeof MonitorRunShape>;
export type MonitorResult = z.infer<typeof MonitorResultShape>;
export type MonitorSchedule = (typeof MONITOR_SCHEDULES)[number];
export type MonitorStatus = (typeof MONITOR_STATUSES)[number];
export type RunStatus = (typeof RUN_STATUSES)[number];
