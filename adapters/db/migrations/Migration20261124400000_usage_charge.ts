import { Migration } from '@mikro-orm/migrations';

/**
 * One row per operation a billed call was charged for, with the call's request id: the account's usage ledger
 * (charges by day and by operation). Monitor runs add theirs in the run's own transaction.
 */
export class Migration20261124400000_usage_charge extends Migration {
  override name = 'Migration20261124400000_usage_charge';

  override up(): void {
    this.addSql(`create table "usage_charge" (
      "id" bigserial not null,
      "workspace_id" uuid not null,
      "request_id" text not null,
      "operation_id" text not null,
      "surface" text not null,
      "credits" int not null check ("credits" > 0),
      "charged_at" timestamptz not null,
      constraint "usage_charge_pkey" primary key ("id")
    );`);
    this.addSql(`create index "usage_charge_workspace_charged_at_index" on "usage_charge" ("workspace_id", "charged_at", "id");`);
  }

  override down(): void {
    this.addSql(`drop table if exists "usage_charge";`);
  }
}
