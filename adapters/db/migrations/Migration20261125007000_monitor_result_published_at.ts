import { Migration } from '@mikro-orm/migrations';

/**
 * When a result's item was published on its platform: the results of one run share their `first_seen_at`, and are
 * listed newest item first by this, rather than by their random ids. Null for results recorded before it.
 */
export class Migration20261125007000_monitor_result_published_at extends Migration {
  override name = 'Migration20261125007000_monitor_result_published_at';

  override up(): void {
    this.addSql(`alter table "monitor_result" add column "published_at" timestamptz null;`);
  }
}
