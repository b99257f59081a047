import { Migration } from '@mikro-orm/migrations';

/**
 * Every change of a key that matters to authentication (revoked, expiry, scopes, hash, deleted) notifies
 * `api_key_changed` with the key id, whatever wrote it: instances forget the key from their caches. `last_used_at`,
 * written about once a minute per key, does not notify.
 */
export class Migration20261124500000_api_key_changes extends Migration {
  override name = 'Migration20261124500000_api_key_changes';

  override up(): void {
    this.addSql(`create function "api_key_changed"() returns trigger language plpgsql as $$
      begin
        perform pg_notify('api_key_changed', old."id"::text);
        return null;
      end $$;`);
    this.addSql(`create trigger "api_key_changed_on_update" after update on "api_key" for each row
      when (old."revoked_at" is distinct from new."revoked_at" or old."expires_at" is distinct from new."expires_at"
        or old."scopes" is distinct from new."scopes" or old."hash" is distinct from new."hash"
        or old."workspace_id" is distinct from new."workspace_id" or old."label" is distinct from new."label")
      execute function "api_key_changed"();`);
    this.addSql(`create trigger "api_key_changed_on_delete" after delete on "api_key" for each row execute function "api_key_changed"();`);
  }

  override down(): void {
    this.addSql(`drop trigger if exists "api_key_changed_on_delete" on "api_key";`);
    this.addSql(`drop trigger if exists "api_key_changed_on_update" on "api_key";`);
    this.addSql(`drop function if exists "api_key_changed"();`);
  }
}
