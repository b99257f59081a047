import type { Monitor, MonitorResult, MonitorRun, MonitorSchedule, MonitorStatus, RunStatus } from '../shapes/monitor-shapes.ts';
import { toInt } from '../db/sql.ts';
import { isStorable, storableText } from '../db/storable-text.ts';

/** Rows as the database returns them, and their API objects. */

export interface MonitorRow {
  id: string;
  workspace_id: string;
  name: string;
  target: unknown;
  sources: unknown;
  schedule: MonitorSchedule;
  status: MonitorStatus;
  webhook_id: string | null;
  backfill: unknown;
  baseline_at: unknown;
  last_run_at: unknown;
  next_run_at: unknown;
  created_at: unknown;
  updated_at: unknown;
}

/**
 * SQL true while the row watches `target` from `sources`, with its parameters: jsonb compares the target by value and
 * the sources as a set, so a reordering of sources is no change of what the monitor watches.
 */
export function watchesSame(target: unknown, sources: unknown): { sql: string; params: string[] } {
  const [t, s] = [JSON.stringify(target), JSON.stringify(sources)];
  return { sql: `("target" = ?::jsonb and "sources" @> ?::jsonb and "sources" <@ ?::jsonb)`, params: [t, s, s] };
}

export interface RunRow {
  id: string;
  monitor_id: string;
  status: RunStatus;
  trigger: 'schedule' | 'manual';
  attempts: unknown;
  started_at: unknown;
  finished_at: unknown;
  results_found: unknown;
  new_results: unknown;
  suppressed: unknown;
  credits_used: unknown;
  error_summary: string | null;
  created_at: unknown;
}

export interface ResultRow {
  id: string;
  monitor_id: string;
  item_type: 'post' | 'comment';
  source: string;
  external_id: string | null;
  url: string;
  title: string | null;
  body: string | null;
  author_handle: string | null;
  community_name: string | null;
  /** The platform fields as JSON, when one of them could not be stored as it is. */
  exact_fields: string | null;
  first_seen_at: unknown;
}

/** What a result holds as the platform gave it. */
export type PlatformFields = Pick<MonitorResult, 'externalId' | 'url' | 'title' | 'body' | 'authorHandle' | 'communityName'>;

/**
 * The platform fields as their columns can hold them, and, when one of them could not be stored as it is (a U+0000),
 * all of them exactly as JSON text: the columns stay readable by SQL and by an earlier version, the API shows the
 * platform's own text.
 */
export function storedFields(fields: PlatformFields): { columns: PlatformFields; exact: string | null } {
  const { externalId, url, title, body, authorHandle, communityName } = fields;
  const exact = { externalId, url, title, body, authorHandle, communityName };
  const texts = Object.values(exact).filter((value): value is string => value !== null);
  if (texts.every(isStorable)) return { columns: exact, exact: null };
  const column = (value: string | null) => (value === null ? null : storableText(value));
  return {
    columns: { externalId: column(externalId), url: storableText(url), title: column(title), body: column(body), authorHandle: column(authorHandle), communityName: column(communityName) },
    exact: JSON.stringify(exact),
  };
}

/** jsonb arrives parsed (pg) or as text (some drivers). */
export function json<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

export function iso(value: unknown): string {
  return (value instanceof Date ? value : new Date(String(value))).toISOString();
}

export function isoOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : iso(value);
}

export function toMonitor(row: MonitorRow): Monitor {
  return {
    id: row.id,
    name: row.name,
    target: json<Record<string, unknown>>(row.target),
    sources: json<string[]>(row.sources),
    schedule: row.schedule,
    status: row.status,
    webhookId: row.webhook_id,
    lastRunAt: isoOrNull(row.last_run_at),
    nextRunAt: isoOrNull(row.next_run_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** The run's suppressed counts, recorded by reason (`seen_id`, …), as the API names them. */
function suppressedOf(recorded: Record<string, unknown>): MonitorRun['suppressed'] {
  return {
    seenId: toInt(recorded.seen_id),
    seenLink: toInt(recorded.seen_link),
    seenContent: toInt(recorded.seen_content),
    duplicateInRun: toInt(recorded.duplicate_in_run),
    filtered: toInt(recorded.filtered),
    baseline: toInt(recorded.baseline),
  };
}

export function toRun(row: RunRow): MonitorRun {
  return {
    id: row.id,
    monitorId: row.monitor_id,
    status: row.status,
    startedAt: isoOrNull(row.started_at),
    finishedAt: isoOrNull(row.finished_at),
    resultsFound: toInt(row.results_found),
    newResults: toInt(row.new_results),
    creditsUsed: toInt(row.credits_used),
    suppressed: suppressedOf(json<Record<string, unknown> | null>(row.suppressed) ?? {}),
    errorSummary: row.error_summary,
    createdAt: iso(row.created_at),
  };
}

export function toResult(row: ResultRow): MonitorResult {
  return {
    id: row.id,
    monitorId: row.monitor_id,
    itemType: row.item_type,
    source: row.source,
    externalId: row.external_id,
    url: row.url,
    title: row.title,
    body: row.body,
    authorHandle: row.author_handle,
    communityName: row.community_name,
    ...(row.exact_fields ? json<PlatformFields>(row.exact_fields) : {}),
    firstSeenAt: iso(row.first_seen_at),
  };
}
