import { Migration } from '@mikro-orm/migrations';

/**
 * Platform text may hold U+0000 (or a lone surrogate), which PostgreSQL's text cannot hold and jsonb refuses even as
 * the `\u0000` escape. What keeps a JSON value whole becomes text holding its JSON, where such a character is the
 * six ASCII characters of its escape: an idempotent answer (so its replay is also the first answer's bytes), a
 * webhook event's payload and paging state. This version's readers take text and jsonb alike, and text takes a jsonb
 * written by an earlier instance during a rolling deploy (an assignment cast). Not so the version before's
 * idempotency sweep: it reads `"body"->'data'`, which text refuses, so its housekeeping fails each minute until its
 * instances are gone (docs/jobs.md). Each column change rewrites its table under an exclusive lock. A monitor
 * result keeps its columns and gains `exact_fields`, the JSON of its platform fields, written only when one of them
 * cannot be stored as it is.
 */
export class Migration20261125006000_platform_text_storable extends Migration {
  override name = 'Migration20261125006000_platform_text_storable';

  override up(): void {
    this.addSql(`alter table "idempotency_key" alter column "body" type text using "body"::text;`);
    this.addSql(`alter table "webhook_delivery" alter column "payload" type text using "payload"::text;`);
    this.addSql(`alter table "paging_state" alter column "state" type text using "state"::text;`);
    this.addSql(`alter table "monitor_result" add column "exact_fields" text null;`);
  }
}
