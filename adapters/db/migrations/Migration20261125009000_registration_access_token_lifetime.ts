import { Migration } from '@mikro-orm/migrations';

/**
 * Registration access tokens issued before they had a lifetime (30 days, oauth-server/authorization-server.ts) end
 * 30 days after their issue too, as the new ones do: expired rows are then invisible and swept by housekeeping.
 */
export class Migration20261125009000_registration_access_token_lifetime extends Migration {
  override name = 'Migration20261125009000_registration_access_token_lifetime';

  override up(): void {
    this.addSql(`update "oauth_model" set "expires_at" = to_timestamp(("payload"->>'iat')::bigint) + interval '30 days'
      where "kind" = 'RegistrationAccessToken' and "expires_at" is null and "payload"->>'iat' is not null;`);
  }
}
