import { Migration } from '@mikro-orm/migrations';

/**
 * The authorization server's sessions are stored under a hash of their id (their browser's cookie), as tokens are.
 * Sessions stored under the raw id before are deleted rather than rewritten: they are short-lived, and a browser whose
 * session is gone is simply given a new one on its next authorization (the dashboard sign-in it rests on is kept).
 */
export class Migration20261125004000_oauth_sessions_hashed extends Migration {
  override name = 'Migration20261125004000_oauth_sessions_hashed';

  override up(): void {
    this.addSql(`delete from "oauth_model" where "kind" = 'Session';`);
  }

  override down(): void {
    // Nothing to restore: an older service starts new sessions as browsers come back.
  }
}
