import { Migration } from '@mikro-orm/migrations';

/** Responses kept under the client's `Idempotency-Key` for a day, so a retried request is answered, not redone. */
export class Migration20261124000200_idempotency extends Migration {
  override name = 'Migration20261124000200_idempotency';

  override up(): void {
    this.addSql(`create table "idempotency_key" (
      "scope" text not null,
      "key" varchar(255) not null,
      "request_hash" text not null,
      "status" int null,
      "headers" jsonb null,
      "body" jsonb null,
      "created_at" timestamptz not null,
      constraint "idempotency_key_pkey" primary key ("scope", "key")
    );`);
    this.addSql(`create index "idempotency_key_created_at_index" on "idempotency_key" ("created_at");`);
  }

  override down(): void {
    this.addSql(`drop table if exists "idempotency_key";`);
  }
}
