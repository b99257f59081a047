import { Migration } from '@mikro-orm/migrations';
import { getCreateIndexesSQL, getCreateTableSQL, getUpdateTimestampTriggerSQL } from '@agendajs/postgres-backend';

/** The table of the job store (Agenda's PostgreSQL backend), made here so no worker ever runs DDL at start. */
export const JOBS_TABLE = 'agenda_jobs';

export class Migration20261124000000_jobs extends Migration {
  override name = 'Migration20261124000000_jobs';

  override up(): void {
    this.addSql(getCreateTableSQL(JOBS_TABLE));
    for (const statement of getCreateIndexesSQL(JOBS_TABLE)) this.addSql(statement);
    // One statement per call: PGlite runs each as a prepared statement, which takes a single command.
    for (const statement of getUpdateTimestampTriggerSQL(JOBS_TABLE).split(/;\s*\n\s*\n/)) this.addSql(statement.trim());
  }

  override down(): void {
    this.addSql(`drop table if exists "${JOBS_TABLE}";`);
  }
}
