import { Migration } from '@mikro-orm/migrations';

/**
 * A key change notifies `<key id>:<transaction id>` instead of the bare key id: the change id every instance
 * acknowledges once it has dropped the key, so whoever made the change (who learns the transaction id from its own
 * write) waits for exactly that change's acknowledgements (docs/hot-path.md).
 */
export class Migration20261125002000_key_change_ids extends Migration {
  override name = 'Migration20261125002000_key_change_ids';

  override up(): void {
    this.addSql(`create or replace function "api_key_changed"() returns trigger language plpgsql as $$
      begin
        perform pg_notify('api_key_changed', old."id"::text || ':' || txid_current()::text);
        return null;
      end $$;`);
  }

  override down(): void {
    this.addSql(`create or replace function "api_key_changed"() returns trigger language plpgsql as $$
      begin
        perform pg_notify('api_key_changed', old."id"::text);
        return null;
      end $$;`);
  }
}
