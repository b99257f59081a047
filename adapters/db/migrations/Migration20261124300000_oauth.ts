import { Migration } from '@mikro-orm/migrations';

/**
 * MCP sign-in: the authorization server's records (codes, tokens, grants, sessions, registered clients, its own
 * keys) in one table keyed by kind and id, and connections as rows of `api_key` so every key list shows them and
 * every revocation path revokes them. A connection has no secret (`hash` null): it authenticates only through the
 * authorization server's access tokens, bound to it by `oauth_grant_id`.
 */
export class Migration20261124300000_oauth extends Migration {
  override name = 'Migration20261124300000_oauth';

  override up(): void {
    this.addSql(`create table "oauth_model" (
      "kind" text not null,
      "id" text not null,
      "payload" jsonb not null,
      "grant_id" text null,
      "uid" text null,
      "user_code" text null,
      "expires_at" timestamptz null,
      "consumed_at" timestamptz null,
      constraint "oauth_model_pkey" primary key ("kind", "id")
    );`);
    this.addSql(`create index "oauth_model_grant_id_index" on "oauth_model" ("grant_id") where "grant_id" is not null;`);
    this.addSql(`create index "oauth_model_uid_index" on "oauth_model" ("uid") where "uid" is not null;`);
    this.addSql(`create index "oauth_model_user_code_index" on "oauth_model" ("user_code") where "user_code" is not null;`);
    this.addSql(`create index "oauth_model_expires_at_index" on "oauth_model" ("expires_at") where "expires_at" is not null;`);

    this.addSql(`alter table "api_key" add column "kind" text not null default 'api_key';`);
    this.addSql(`alter table "api_key" add constraint "api_key_kind_check" check ("kind" in ('api_key', 'mcp_connection'));`);
    this.addSql(`alter table "api_key" alter column "hash" drop not null;`);
    this.addSql(`alter table "api_key" add column "oauth_client_id" text null;`);
    this.addSql(`alter table "api_key" add column "oauth_grant_id" text null;`);
    this.addSql(`alter table "api_key" add column "person_id" uuid null;`);
    this.addSql(`alter table "api_key" add constraint "api_key_oauth_grant_id_unique" unique ("oauth_grant_id");`);
    this.addSql(`alter table "api_key" add constraint "api_key_person_id_foreign" foreign key ("person_id") references "person" ("id") on delete cascade;`);
    this.addSql(`alter table "api_key" add constraint "api_key_connection_check" check (("kind" = 'api_key') = ("hash" is not null) and ("kind" = 'mcp_connection') = ("oauth_grant_id" is not null));`);
  }

  override down(): void {
    this.addSql(`alter table "api_key" drop constraint if exists "api_key_connection_check";`);
    this.addSql(`delete from "api_key" where "kind" = 'mcp_connection';`);
    this.addSql(`alter table "api_key" drop column if exists "person_id";`);
    this.addSql(`alter table "api_key" drop column if exists "oauth_grant_id";`);
    this.addSql(`alter table "api_key" drop column if exists "oauth_client_id";`);
    this.addSql(`alter table "api_key" alter column "hash" set not null;`);
    this.addSql(`alter table "api_key" drop column if exists "kind";`);
    this.addSql(`drop table if exists "oauth_model";`);
  }
}
