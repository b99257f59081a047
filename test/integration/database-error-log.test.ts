import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { sqlDbFromOrm } from '../../adapters/db/sql.ts';
import { LOGGER_OPTIONS } from '../../adapters/logging/logger.ts';
import { useMigratedOrm } from '../support/migrated-orm.ts';

/** The service's logger configuration, writing to memory: the lines a failed statement would leave. */
function memoryLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: pino({ ...LOGGER_OPTIONS, level: 'error' }, sink), lines };
}

describe('a failed statement in the error log', () => {
  const migrated = useMigratedOrm();

  it('names its code, table and constraint, never the statement or the values it carried', async () => {
    const db = sqlDbFromOrm(migrated.orm);
    const { log, lines } = memoryLogger();
    const value = 'private-value-7f3a';
    // A foreign key refused (PostgreSQL quotes the key in `detail`; PGlite's driver keeps the inlined statement).
    const refused = await db.all(`insert into "monitor_seen" ("monitor_id", "key", "first_seen_at") values (?, ?, now())`, ['00000000-0000-4000-8000-000000000000', value]).catch((error: unknown) => error);
    log.error({ err: refused }, 'job failed');
    // The same error as the cause of another, as a wrapper would throw it.
    log.error({ err: new Error('recording failed', { cause: refused }) }, 'request failed');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).not.toContain('private-value');
    const [first, second] = lines.map((line) => JSON.parse(line));
    expect(first.err).toMatchObject({ code: '23503', table: 'monitor_seen', constraint: 'monitor_seen_monitor_id_foreign', message: expect.stringContaining('violates foreign key constraint') });
    expect(first.err.stack).toContain('    at ');
    expect(second.err).toMatchObject({ message: 'recording failed', cause: { code: '23503', table: 'monitor_seen' } });
  });

  it('drops the value an input error quotes', async () => {
    const { log, lines } = memoryLogger();
    const refused = await sqlDbFromOrm(migrated.orm).all(`select 1 from "monitor" where "id" = ?`, ['private-value-not-a-uuid']).catch((error: unknown) => error);
    log.error({ err: refused }, 'request failed');
    expect(lines[0]).not.toContain('private-value');
    expect(JSON.parse(lines[0]).err).toMatchObject({ code: '22P02', message: 'invalid input syntax for type uuid: "…"' });
  });

  it('drops a value quoted midway through the message', async () => {
    const { log, lines } = memoryLogger();
    const refused = await sqlDbFromOrm(migrated.orm).all(`select ?::integer as "n"`, ['98765432109876']).catch((error: unknown) => error);
    log.error({ err: refused }, 'request failed');
    expect(lines[0]).not.toContain('98765432109876');
    expect(JSON.parse(lines[0]).err).toMatchObject({ code: '22003', message: 'value "…" is out of range for type integer' });
  });
});
