import { PostgreSqlConnection } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.ts';

/** One SQL statement with `?` placeholders. */
export interface Statement {
  sql: string;
  params?: readonly unknown[];
}

const NAMED = /(?<![:\w]):([A-Za-z_]\w*)/g;

/** Turns `:name` placeholders (not `::casts`) into `?` with the values in order; a missing value is a bug. */
export function bind(sql: string, values: Readonly<Record<string, unknown>>): Statement {
  const params: unknown[] = [];
  const text = sql.replace(NAMED, (_match, name: string) => {
    if (!(name in values)) throw new Error(`No value for :${name}.`);
    params.push(values[name]);
    return '?';
  });
  return { sql: text, params };
}

/** Runs one statement and returns its rows. */
export interface SqlRunner {
  all<T extends object>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}

export interface BillingDb extends SqlRunner {
  /** Commits when `work` resolves, rolls back when it throws. */
  transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T>;
  /**
   * Runs the statements in order as one transaction and returns each one's rows. Each statement takes a
   * fresh snapshot, so a lock taken by one is honoured by the reads of the next.
   */
  atomic(statements: readonly Statement[]): Promise<object[][]>;
}

/** The slice of a `pg` Pool billing uses (the package ships no types). */
interface PgPool {
  query(text: string): Promise<PgResult | PgResult[]>;
}
interface PgResult {
  rows: object[];
}

/**
 * Billing talks SQL through the ORM's own connection, so it needs no second pool and runs unchanged on both
 * drivers. On PostgreSQL, `atomic` sends all its statements in one simple-protocol message (one implicit
 * transaction, one round trip): an admission holds its per-workspace lock only while the server executes,
 * never across a network round trip. PGlite has one connection that runs one transaction at a time, so there
 * `atomic` is an ordinary transaction through the ORM (a raw script would interleave with the ORM's).
 */
export function billingDbFromOrm(orm: Orm): BillingDb {
  const connection = orm.em.getConnection();
  const platform = orm.em.getPlatform();
  const all = <T extends object>(sql: string, params: readonly unknown[] = []) =>
    connection.execute<T[]>(sql, params, 'all');
  const transaction = <T>(work: (tx: SqlRunner) => Promise<T>) =>
    connection.transactional((trx) =>
      work({
        all: <R extends object>(sql: string, params: readonly unknown[] = []) =>
          connection.execute<R[]>(sql, params, 'all', trx),
      }),
    );

  if (connection instanceof PostgreSqlConnection) {
    let pool: Promise<PgPool> | undefined;
    return {
      all,
      transaction,
      async atomic(statements: readonly Statement[]) {
        const script = statements.map((s) => platform.formatQuery(s.sql, s.params ?? [])).join(';\n');
        pool ??= connection.getNativeClient() as Promise<PgPool>;
        const result = await (await pool).query(script);
        return (Array.isArray(result) ? result : [result]).map((r) => r.rows);
      },
    };
  }
  return {
    all,
    transaction,
    atomic: (statements: readonly Statement[]) =>
      transaction(async (tx) => {
        const results: object[][] = [];
        for (const s of statements) results.push(await tx.all(s.sql, s.params));
        return results;
      }),
  };
}

/** Bigint columns arrive as strings (pg) or bigints (PGlite); every figure billing handles fits a double exactly. */
export function toInt(value: unknown): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'number' ? value : Number(value);
}
