import { Migration } from '@mikro-orm/migrations';
import { JOBS_TABLE } from './Migration20261124000000_jobs.ts';

/**
 * At most one schedule row per monitor. Agenda's `unique()` is a SELECT then an INSERT on PostgreSQL, so two changes
 * of one monitor's schedule at once could both insert; this index refuses the second, which then updates the first.
 */
export class Migration20261124510000_monitor_schedule_unique extends Migration {
  override name = 'Migration20261124510000_monitor_schedule_unique';

  override up(): void {
    // A database that already raced keeps one of each monitor's rows: they differ only in when they next fire.
    this.addSql(`delete from "${JOBS_TABLE}" a using "${JOBS_TABLE}" b
      where a."name" = 'monitor.schedule' and b."name" = 'monitor.schedule' and a."data"->>'monitorId' = b."data"->>'monitorId' and a."id" > b."id";`);
    this.addSql(`create unique index "agenda_jobs_one_schedule_per_monitor" on "${JOBS_TABLE}" (("data"->>'monitorId')) where "name" = 'monitor.schedule';`);
  }

  override down(): void {
    this.addSql(`drop index if exists "agenda_jobs_one_schedule_per_monitor";`);
  }
}
