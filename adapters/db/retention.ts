import type { SqlRunner } from './sql.ts';

const DAY_MS = 86_400_000;

/**
 * How long rows that would otherwise grow for ever are kept (docs/jobs.md "Retention"). Listings of runs, results and
 * deliveries take no cursor and show at most their newest 100: those, and everything younger than the window, stay.
 */
export const RETENTION = {
  /** Per monitor (runs, results) and per webhook (deliveries): at least the most a listing shows. */
  newestKept: 100,
  /** Finished runs, results and finished deliveries past the newest kept are deleted once older than this. */
  historyDays: 30,
  /** The usage ledger (`usage_charge`): a year of monthly statements and a month more. The credit ledger is never deleted. */
  usageDays: 400,
  /** An OAuth client registered this long ago that no person ever connected. */
  unusedClientDays: 30,
  /** Rows deleted per statement; a table behind by more catches up over the next minutes. */
  batch: 1_000,
  /** Statements per table and sweep. */
  batchesPerSweep: 10,
} as const;

export type RetentionSweep = Record<'deliveries' | 'runs' | 'results' | 'usageCharges' | 'oauthClients', number>;

/**
 * Rows ranked newest first within their parent, past the newest kept and older than `cutoff`, in a final state. Only
 * parents with something to delete are ranked: a finished row older than the cutoff (one seek on the (parent, time)
 * index) and a row past the newest kept older than it (at most newest kept + 1 index entries). Ranking the whole
 * table every minute read every row even when nothing was to go.
 */
function pastHistory(table: string, parent: string, parentTable: string, time: string, finished: string): string {
  return `with gone as (
    delete from "${table}" where "id" in (
      select "id" from (
        select "id", "${time}" as "at", ${finished} as "finished",
          row_number() over (partition by "${parent}" order by "${time}" desc, "id" desc) as "newer"
        from "${table}"
        where "${parent}" in (
          select p."id" from "${parentTable}" p
          where exists (select 1 from "${table}" o where o."${parent}" = p."id" and o."${time}" < ?::timestamptz and ${finished})
            and (select o."${time}" from "${table}" o where o."${parent}" = p."id" order by o."${time}" desc offset ? limit 1) < ?::timestamptz)) ranked
      where "newer" > ? and "at" < ?::timestamptz and "finished" limit ?)
    returning 1)
  select count(*)::int as "n" from gone`;
}

type Cutoffs = Record<'history' | 'usage' | 'client', Date>;

const STATEMENTS: Record<keyof RetentionSweep, (cutoffs: Cutoffs) => { sql: string; params: unknown[] }> = {
  // A delivery's attempts go with it (on delete cascade).
  deliveries: ({ history }) => ({
    sql: pastHistory('webhook_delivery', 'webhook_id', 'webhook', 'created_at', `"status" in ('succeeded', 'failed')`),
    params: [history.toISOString(), RETENTION.newestKept, history.toISOString(), RETENTION.newestKept, history.toISOString(), RETENTION.batch],
  }),
  runs: ({ history }) => ({
    sql: pastHistory('monitor_run', 'monitor_id', 'monitor', 'created_at', `"status" in ('succeeded', 'failed', 'skipped')`),
    params: [history.toISOString(), RETENTION.newestKept, history.toISOString(), RETENTION.newestKept, history.toISOString(), RETENTION.batch],
  }),
  // What a monitor has seen stays in monitor_seen while the monitor exists, so a deleted result never alerts again.
  results: ({ history }) => ({
    sql: pastHistory('monitor_result', 'monitor_id', 'monitor', 'first_seen_at', 'true'),
    params: [history.toISOString(), RETENTION.newestKept, history.toISOString(), RETENTION.newestKept, history.toISOString(), RETENTION.batch],
  }),
  // The oldest rows by id (which follows insertion), a batch of them on the primary key whatever gaps the ids have;
  // those old enough go, so the scan never reads on into the young rows.
  usageCharges: ({ usage }) => ({
    sql: `with gone as (
      delete from "usage_charge" where "id" in (
        select "id" from (select "id", "charged_at" from "usage_charge" order by "id" limit ?) oldest where "charged_at" < ?::timestamptz)
      returning 1)
    select count(*)::int as "n" from gone`,
    params: [RETENTION.batch, usage.toISOString()],
  }),
  // oidc-provider stores the registration time (seconds) in the client's metadata; a connected client has an api_key row.
  // Its registration access token (one per registration) goes with it: tokens end 30 days after their issue anyway
  // (oauth-server/authorization-server.ts, and a migration for older ones), but one stored without an issue time has no end.
  oauthClients: ({ client }) => ({
    sql: `with gone as (
      delete from "oauth_model" where "kind" = 'Client' and "id" in (
        select c."id" from "oauth_model" c
        where c."kind" = 'Client' and (c."payload"->>'client_id_issued_at')::bigint < ?
          and not exists (select 1 from "api_key" k where k."oauth_client_id" = c."id")
        limit ?)
      returning "id"),
    tokens as (
      delete from "oauth_model" where "kind" = 'RegistrationAccessToken' and "payload"->>'clientId' in (select "id" from gone))
    select count(*)::int as "n" from gone`,
    params: [Math.floor(client.getTime() / 1000), RETENTION.batch],
  }),
};

/** What each table keeps rows from, at `now`. */
function cutoffsAt(now: Date): Cutoffs {
  return {
    history: new Date(now.getTime() - RETENTION.historyDays * DAY_MS),
    usage: new Date(now.getTime() - RETENTION.usageDays * DAY_MS),
    client: new Date(now.getTime() - RETENTION.unusedClientDays * DAY_MS),
  };
}

/** The statement deleting one batch of `table` at `now` (the sweep runs it; tests read its plan). */
export function retentionStatement(table: keyof RetentionSweep, now: Date): { sql: string; params: unknown[] } {
  return STATEMENTS[table](cutoffsAt(now));
}

/** One housekeeping pass: deletes what the retention windows let go, in bounded batches; returns how many rows per table. */
export async function sweepRetention(db: SqlRunner, now: Date): Promise<RetentionSweep> {
  const swept = { deliveries: 0, runs: 0, results: 0, usageCharges: 0, oauthClients: 0 };
  for (const table of Object.keys(STATEMENTS) as (keyof RetentionSweep)[]) {
    const { sql, params } = retentionStatement(table, now);
    for (let batch = 0; batch < RETENTION.batchesPerSweep; batch++) {
      const [row] = await db.all<{ n: number }>(sql, params);
      swept[table] += row?.n ?? 0;
      if ((row?.n ?? 0) < RETENTION.batch) break;
    }
  }
  return swept;
}
