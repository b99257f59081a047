import type { AbstractSqlConnection } from '@mikro-orm/sql';
import { embeddedDatabase, type Orm } from '../db/orm.ts';
import { USAGE_COLUMNS, insertFromJson, usageRowsJson, type UsageChargeRecord } from './usage-charges.ts';

/** Writes one batch of the usage ledger's rows. */
export type UsageChargeWriter = (records: readonly UsageChargeRecord[]) => Promise<void>;

/** COPY's text format: a backslash, tab, newline or carriage return inside a value is written as its escape. */
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const copyText = (value: string) => value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!);

/**
 * The usage ledger's batch write, off the ORM's `execute`: that one quotes every value into the statement's text,
 * character by character, which for a batch of a few hundred rows cost more of the service's CPU than the rows'
 * insertion on PostgreSQL (docs/billing.md, "Usage ledger"). Same rows, same columns as `insertUsageCharges`:
 * - PGlite: `COPY … FROM '/dev/blob'`, the rows as COPY text in a blob. PGlite's own
 *   `query` waits for a transaction the ORM has open on its one connection, as the ORM's statements do.
 * - PostgreSQL: the same statement, its rows' JSON sent as a bind parameter through the ORM's own pool.
 */
export async function createUsageChargeWriter(orm: Orm): Promise<UsageChargeWriter> {
  const pglite = embeddedDatabase(orm);
  if (pglite) {
    const copy = `copy "usage_charge" (${USAGE_COLUMNS.map((column) => `"${column}"`).join(', ')}) from '/dev/blob'`;
    return async (records) => {
      const text = records
        .map((r) => `${r.workspaceId}\t${copyText(r.requestId)}\t${copyText(r.operationId)}\t${copyText(r.surface)}\t${r.credits}\t${r.chargedAt.toISOString()}\n`)
        .join('');
      await pglite.query(copy, [], { blob: new Blob([text]) });
    };
  }
  const client = (orm.em.getConnection() as unknown as AbstractSqlConnection).getClient();
  const sql = insertFromJson('$1');
  return async (records) => {
    // Kysely's compiled form of a raw statement: the driver sends `sql` with `parameters` bound, nothing else is read.
    await client.executeQuery({ sql, parameters: [usageRowsJson(records)], query: { kind: 'RawNode', sqlFragments: [sql], parameters: [] }, queryId: { queryId: 'usage_charge' } } as never);
  };
}
