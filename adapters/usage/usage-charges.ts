import type { SqlDb, SqlRunner } from '../db/sql.ts';
import { toInt } from '../db/sql.ts';
import { logger } from '../logging/logger.ts';
import type { UsageCharge, UsageTotal } from '../shapes/account-shapes.ts';

/** What one call was charged for one operation. */
export interface UsageChargeRecord {
  workspaceId: string;
  requestId: string;
  operationId: string;
  surface: string;
  credits: number;
  chargedAt: Date;
}

/** Charges of one account between two instants, optionally of one operation. */
export interface UsageRange {
  workspaceId: string;
  from: Date;
  /** Exclusive. */
  to: Date;
  operationId?: string;
}

/** Where a page of charges resumes: after this charge (newest first). */
export interface UsageKey {
  at: string;
  id: number;
}

export interface UsageCharges {
  /** Queues the charges of a call; they are written in batches, off the call's path. */
  record(records: readonly UsageChargeRecord[]): void;
  /** Writes what is queued now (reads and shutdown call it). */
  flush(): Promise<void>;
  page(range: UsageRange, limit: number, after: UsageKey | undefined): Promise<{ items: UsageCharge[]; next: UsageKey | null }>;
  totals(range: UsageRange): Promise<UsageTotal[]>;
}

/** Queued charges beyond this many (the database unreachable for long) are dropped and logged, oldest first. */
const MAX_QUEUED = 10_000;
const FLUSH_MS = 200;

/** The usage ledger's columns, in the order every batch write gives them. */
export const USAGE_COLUMNS = ['workspace_id', 'request_id', 'operation_id', 'surface', 'credits', 'charged_at'] as const;

/** Inserts the rows of a JSON array (`usageRowsJson`) given at `placeholder`. */
export const insertFromJson = (placeholder: string) => `insert into "usage_charge" ("workspace_id", "request_id", "operation_id", "surface", "credits", "charged_at")
  select "workspace_id", "request_id", "operation_id", "surface", "credits", "charged_at"
  from jsonb_to_recordset(${placeholder}::jsonb) as r("workspace_id" uuid, "request_id" text, "operation_id" text, "surface" text, "credits" int, "charged_at" timestamptz)`;

export const usageRowsJson = (records: readonly UsageChargeRecord[]): string =>
  JSON.stringify(records.map((r) => ({ workspace_id: r.workspaceId, request_id: r.requestId, operation_id: r.operationId, surface: r.surface, credits: r.credits, charged_at: r.chargedAt.toISOString() })));

const INSERT = insertFromJson('?');

/** Writes charges in the caller's transaction (a monitor run books its charge with its results). */
export async function insertUsageCharges(tx: SqlRunner, records: readonly UsageChargeRecord[]): Promise<void> {
  if (records.length === 0) return;
  await tx.all(INSERT, [usageRowsJson(records)]);
}

const iso = (value: unknown): string => (value instanceof Date ? value : new Date(String(value))).toISOString();

/**
 * The usage ledger: one row per operation a call was charged for. Calls queue their rows and a timer writes them
 * together, so a billed call waits on no extra statement; a row is at most FLUSH_MS behind its charge on the
 * instance that served it (an instance killed in that window loses those rows, never the charges themselves).
 */
export function createUsageCharges(
  db: SqlDb,
  /** `write`: how a batch reaches the table (the service's: usage-charge-writer.ts); default `insertUsageCharges`. */
  options: { flushMs?: number; write?: (records: readonly UsageChargeRecord[]) => Promise<void> } = {},
): UsageCharges & { close(): Promise<void> } {
  const writeRows = options.write ?? ((records: readonly UsageChargeRecord[]) => insertUsageCharges(db, records));
  let queued: UsageChargeRecord[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  const write = async (): Promise<void> => {
    timer = undefined;
    const batch = queued;
    queued = [];
    if (batch.length === 0) return;
    try {
      await writeRows(batch);
    } catch (error) {
      queued = [...batch, ...queued].slice(-MAX_QUEUED);
      logger.error({ err: error, rows: batch.length }, 'usage charges not written; retrying');
      timer ??= setTimeout(() => void flush(), options.flushMs ?? FLUSH_MS).unref();
    }
  };
  const flush = (): Promise<void> => (writing = writing.then(write));

  const filter = `"workspace_id" = ? and "charged_at" >= ? and "charged_at" < ? and (?::text is null or "operation_id" = ?::text)`;
  const params = (range: UsageRange) => [range.workspaceId, range.from.toISOString(), range.to.toISOString(), range.operationId ?? null, range.operationId ?? null];

  return {
    record(records) {
      if (records.length === 0) return;
      queued.push(...records);
      timer ??= setTimeout(() => void flush(), options.flushMs ?? FLUSH_MS).unref();
    },
    flush,
    async page(range, limit, after) {
      await flush();
      const rows = await db.all<{ id: unknown; request_id: string; operation_id: string; credits: unknown; charged_at: unknown }>(
        `select "id", "request_id", "operation_id", "credits", "charged_at" from "usage_charge"
         where ${filter} and (?::timestamptz is null or ("charged_at", "id") < (?::timestamptz, ?::bigint))
         order by "charged_at" desc, "id" desc limit ?`,
        [...params(range), after?.at ?? null, after?.at ?? null, after?.id ?? 0, limit + 1],
      );
      const items = rows.slice(0, limit);
      const last = rows.length > limit ? items[items.length - 1] : undefined;
      return {
        items: items.map((row) => ({ requestId: row.request_id, operationId: row.operation_id, credits: toInt(row.credits), chargedAt: iso(row.charged_at), day: iso(row.charged_at).slice(0, 10) })),
        next: last ? { at: iso(last.charged_at), id: toInt(last.id) } : null,
      };
    },
    async totals(range) {
      await flush();
      const rows = await db.all<{ day: string; operation_id: string; calls: unknown; credits: unknown }>(
        `select to_char("charged_at" at time zone 'UTC', 'YYYY-MM-DD') as "day", "operation_id", count(*) as "calls", sum("credits") as "credits" from "usage_charge"
         where ${filter} group by 1, 2 order by 1 desc, 2`,
        params(range),
      );
      return rows.map((row) => ({ day: String(row.day), operationId: row.operation_id, calls: toInt(row.calls), credits: toInt(row.credits) }));
    },
    async close() {
      if (timer) clearTimeout(timer);
      await flush();
    },
  };
}
