import { Migration } from '@mikro-orm/migrations';

/**
 * Access tokens of MCP connections are cached beside API keys (docs/hot-path.md): a token whose record is deleted
 * (revoked by its client, its grant revoked, swept) notifies `api_key_changed` with its connection's change id, so
 * every instance forgets that connection's cached tokens, as for any change of the connection's `api_key` row.
 */
export class Migration20261125003000_access_token_changes extends Migration {
  override name = 'Migration20261125003000_access_token_changes';

  override up(): void {
    this.addSql(`create function "oauth_access_token_deleted"() returns trigger language plpgsql as $$
      begin
        perform pg_notify('api_key_changed', k."id"::text || ':' || txid_current()::text) from "api_key" k where k."oauth_grant_id" = old."grant_id";
        return null;
      end $$;`);
    this.addSql(`create trigger "oauth_access_token_deleted" after delete on "oauth_model" for each row
      when (old."kind" = 'AccessToken') execute function "oauth_access_token_deleted"();`);
  }

  override down(): void {
    this.addSql(`drop trigger if exists "oauth_access_token_deleted" on "oauth_model";`);
    this.addSql(`drop function if exists "oauth_access_token_deleted"();`);
  }
}
