import { Migration } from '@mikro-orm/migrations';

/** Every operator action, who made it and when: keys created and revoked, credits bought and refunded, spending paused. */
export class Migration20261124000300_operator_audit extends Migration {
  override name = 'Migration20261124000300_operator_audit';

  override up(): void {
    this.addSql(`create table "operator_audit" (
      "id" uuid not null,
      "at" timestamptz not null,
      "actor" text not null,
      "action" text not null,
      "workspace_id" uuid null,
      "status" int not null,
      "request_id" text not null,
      "details" jsonb not null,
      constraint "operator_audit_pkey" primary key ("id")
    );`);
    this.addSql(`create index "operator_audit_at_index" on "operator_audit" ("at");`);
  }

  override down(): void {
    this.addSql(`drop table if exists "operator_audit";`);
  }
}
