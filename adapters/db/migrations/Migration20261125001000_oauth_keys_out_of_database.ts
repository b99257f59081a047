import { Migration } from '@mikro-orm/migrations';

/**
 * The authorization server's keys come from `SVC_OAUTH_KEYS` (or the data folder) now, like the service's other
 * keys: the signing and cookie keys the first instance once stored in `oauth_model` are deleted, so a read of the
 * database no longer gives them.
 */
export class Migration20261125001000_oauth_keys_out_of_database extends Migration {
  override name = 'Migration20261125001000_oauth_keys_out_of_database';

  override up(): void {
    this.addSql(`delete from "oauth_model" where "kind" = 'ServerKeys';`);
  }

  override down(): void {
    // Nothing to restore: an older service creates its keys again on start.
  }
}
