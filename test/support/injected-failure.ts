/** Runs one SQL statement (the caller's connection: PGlite or PostgreSQL). */
export type RunSql = (statement: string) => Promise<unknown>;

/**
 * A trigger that raises on the rows of `table` that `when` selects: `before` the statement, or deferred to the commit.
 * Resolves to the function that removes it again.
 */
export async function injectFailure(
  sql: RunSql,
  name: string,
  table: string,
  event: 'insert' | 'update' | 'delete',
  when: string,
  deferred = false,
): Promise<() => Promise<void>> {
  await sql(`create or replace function "${name}"() returns trigger language plpgsql as $$ begin raise exception 'injected failure: ${name}'; end $$`);
  await sql(
    deferred
      ? `create constraint trigger "${name}" after ${event} on "${table}" deferrable initially deferred for each row when (${when}) execute function "${name}"()`
      : `create trigger "${name}" before ${event} on "${table}" for each row when (${when}) execute function "${name}"()`,
  );
  return async () => {
    await sql(`drop trigger "${name}" on "${table}"`);
    await sql(`drop function "${name}"()`);
  };
}
