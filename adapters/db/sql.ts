import type { Orm } from './orm.ts';

/** One SQL statement with `?` placeholders. */
export interface Statement {
  sql: string;
  params: readonly unknown[];
}

const UNIQUE_VIOLATION = '23505';

/** A statement refused by a unique index or constraint (PostgreSQL's code, or the message where a driver drops it). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown }).code ?? (error as { cause?: { code?: unknown } }).cause?.code;
  return code === UNIQUE_VIOLATION || /duplicate key|unique constraint/i.test(String((error as Error).message));
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

export interface SqlDb extends SqlRunner {
  /** Commits when `work` resolves, rolls back when it throws. */
  transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T>;
}

/**
 * Stores talk SQL through the ORM's own connection (the `pg` pool, or PGlite's single connection, which
 * runs one transaction at a time), so it needs no pool of its own and runs unchanged on both drivers.
 * Transactions are Kysely's own (the ORM's query builder), not the ORM's `transactional`: Kysely hands the connection
 * back to the pool however the transaction ends, and the pool drops one whose session the server ended. The ORM's
 * hands it back only after a rollback that succeeded, which on a dead session throws, so each lost session would
 * take a pool connection with it for good.
 */
export function sqlDbFromOrm(orm: Orm): SqlDb {
  const connection = orm.em.getConnection();
  return {
    all: <T extends object>(sql: string, params: readonly unknown[] = []) => connection.execute<T[]>(sql, params, 'all'),
    transaction: <T>(work: (tx: SqlRunner) => Promise<T>) =>
      connection
        .getClient()
        .transaction()
        .execute((trx) =>
          work({
            all: <R extends object>(sql: string, params: readonly unknown[] = []) => connection.execute<R[]>(sql, params, 'all', trx),
          }),
        ),
  };
}

/** Runs a bound statement. */
export function run<T extends object>(runner: SqlRunner, statement: Statement): Promise<T[]> {
  return runner.all<T>(statement.sql, statement.params);
}

/** Bigint columns arrive as strings (pg) or bigints (PGlite); every figure stored fits a double exactly. */
export function toInt(value: unknown): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'number' ? value : Number(value);
}
