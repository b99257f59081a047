import { Migration } from '@mikro-orm/migrations';

/**
 * A delivery's redeliveries in its current window (docs/webhooks.md): when the window opened and how many it holds,
 * checked and counted in one statement, so redeliveries sent at once cannot all pass the bound.
 */
export class Migration20261125008000_webhook_redelivery_window extends Migration {
  override name = 'Migration20261125008000_webhook_redelivery_window';

  override up(): void {
    this.addSql(`alter table "webhook_delivery" add column "redelivery_window_start" timestamptz null, add column "redeliveries_in_window" int not null default 0;`);
  }
}
