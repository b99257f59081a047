import { Migration } from '@mikro-orm/migrations';

/**
 * People sign in to the dashboard: a password hash on the person, sessions (only the token's hash is stored),
 * and the sign-in throttle's counters, kept in the database so every instance sees the same failures.
 */
export class Migration20261124200000_people extends Migration {
  override name = 'Migration20261124200000_people';

  override up(): void {
    this.addSql(`alter table "person" add column "password_hash" text null;`);

    this.addSql(`create table "person_session" (
      "id" uuid not null,
      "token_hash" text not null,
      "person_id" uuid not null,
      "created_at" timestamptz not null,
      "expires_at" timestamptz not null,
      constraint "person_session_pkey" primary key ("id"),
      constraint "person_session_token_hash_unique" unique ("token_hash"),
      constraint "person_session_person_id_foreign" foreign key ("person_id") references "person" ("id") on delete cascade
    );`);
    this.addSql(`create index "person_session_person_id_index" on "person_session" ("person_id");`);
    this.addSql(`create index "person_session_expires_at_index" on "person_session" ("expires_at");`);

    this.addSql(`create table "sign_in_throttle" (
      "key" text not null,
      "failures" int not null,
      "window_started_at" timestamptz not null,
      constraint "sign_in_throttle_pkey" primary key ("key")
    );`);
  }

  override down(): void {
    this.addSql(`drop table if exists "sign_in_throttle";`);
    this.addSql(`drop table if exists "person_session";`);
    this.addSql(`alter table "person" drop column if exists "password_hash";`);
  }
}
