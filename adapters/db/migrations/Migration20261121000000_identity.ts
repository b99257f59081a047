import { Migration } from '@mikro-orm/migrations';

/**
 * People, workspaces, memberships and API keys. Hand-written and PostgreSQL 15 compatible (PGlite is 18,
 * production servers are 15), so the same SQL runs on both.
 */
export class Migration20261121000000_identity extends Migration {
  override name = 'Migration20261121000000_identity';

  override up(): void {
    this.addSql(`create table "person" (
      "id" uuid not null,
      "email" text not null,
      "name" text not null,
      "created_at" timestamptz not null,
      constraint "person_pkey" primary key ("id"),
      constraint "person_email_unique" unique ("email")
    );`);

    this.addSql(`create table "workspace" (
      "id" uuid not null,
      "name" text not null,
      "owner_person_id" uuid null,
      "receives_free_grant" boolean not null,
      "created_at" timestamptz not null,
      constraint "workspace_pkey" primary key ("id"),
      constraint "workspace_owner_person_id_foreign" foreign key ("owner_person_id") references "person" ("id") on delete set null
    );`);
    // One free grant per person, even when two workspaces are created for them concurrently.
    this.addSql(`create unique index "workspace_free_grant_owner_unique" on "workspace" ("owner_person_id") where "receives_free_grant" = true;`);

    this.addSql(`create table "membership" (
      "person_id" uuid not null,
      "workspace_id" uuid not null,
      "role" text not null,
      "created_at" timestamptz not null,
      constraint "membership_pkey" primary key ("person_id", "workspace_id"),
      constraint "membership_role_check" check ("role" in ('owner', 'member')),
      constraint "membership_person_id_foreign" foreign key ("person_id") references "person" ("id") on update cascade on delete cascade,
      constraint "membership_workspace_id_foreign" foreign key ("workspace_id") references "workspace" ("id") on update cascade on delete cascade
    );`);
    this.addSql(`create index "membership_workspace_id_index" on "membership" ("workspace_id");`);

    this.addSql(`create table "api_key" (
      "id" uuid not null,
      "workspace_id" uuid not null,
      "label" text not null,
      "name" text not null,
      "scopes" text[] not null,
      "hash" text not null,
      "prefix" text not null,
      "created_at" timestamptz not null,
      "expires_at" timestamptz null,
      "revoked_at" timestamptz null,
      "last_used_at" timestamptz null,
      constraint "api_key_pkey" primary key ("id"),
      constraint "api_key_hash_unique" unique ("hash"),
      constraint "api_key_label_check" check ("label" in ('live', 'test')),
      constraint "api_key_workspace_id_foreign" foreign key ("workspace_id") references "workspace" ("id") on delete cascade
    );`);
    this.addSql(`create index "api_key_workspace_id_index" on "api_key" ("workspace_id");`);
  }

  override down(): void {
    this.addSql('drop table if exists "api_key";');
    this.addSql('drop table if exists "membership";');
    this.addSql('drop table if exists "workspace";');
    this.addSql('drop table if exists "person";');
  }
}
