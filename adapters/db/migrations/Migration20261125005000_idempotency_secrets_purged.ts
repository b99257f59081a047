import { Migration } from '@mikro-orm/migrations';

/**
 * Answers kept for `Idempotency-Key` replays no longer hold a secret shown once (a webhook's signing secret, a new
 * operator API key): this deletes the answers kept before that, which did. Their keys then run as new requests.
 */
export class Migration20261125005000_idempotency_secrets_purged extends Migration {
  override name = 'Migration20261125005000_idempotency_secrets_purged';

  override up(): void {
    this.addSql(`delete from "idempotency_key" where jsonb_typeof("body"->'data') = 'object' and (("body"->'data') ? 'secret' or ("scope" = 'operator' and ("body"->'data') ? 'key'));`);
  }
}
