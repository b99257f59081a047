import { Migration } from '@mikro-orm/migrations';

/**
 * Paging state too large for a cursor (a comment tree's queue of unexpanded branches), kept for a day under a
 * random id that the signed cursor carries instead.
 */
export class Migration20261121000200_paging_state extends Migration {
  override name = 'Migration20261121000200_paging_state';

  override up(): void {
    this.addSql(`create table "paging_state" (
      "id" uuid not null,
      "state" jsonb not null,
      "expires_at" timestamptz not null,
      constraint "paging_state_pkey" primary key ("id")
    );`);
    this.addSql(`create index "paging_state_expires_at_index" on "paging_state" ("expires_at");`);
  }

  override down(): void {
    this.addSql(`drop table if exists "paging_state";`);
  }
}
