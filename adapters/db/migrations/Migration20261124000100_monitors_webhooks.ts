import { Migration } from '@mikro-orm/migrations';

/**
 * Monitors and webhooks: saved queries, their runs and results, what each monitor has already seen, and the
 * webhooks their events go to. A delivery row is the durable outbox: a run writes it in the transaction that records
 * the result, and workers attempt it until it succeeds or runs out of retries; every attempt is a row of its own.
 */
export class Migration20261124000100_monitors_webhooks extends Migration {
  override name = 'Migration20261124000100_monitors_webhooks';

  override up(): void {
    this.addSql(`create table "webhook" (
      "id" uuid not null,
      "workspace_id" uuid not null,
      "name" varchar(80) not null,
      "url" varchar(2048) not null,
      "status" text not null default 'active' check ("status" in ('active', 'disabled')),
      "events" jsonb not null,
      "secret_ciphertext" text not null,
      "failure_count" int not null default 0,
      "failing_since" timestamptz null,
      "disabled_at" timestamptz null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "webhook_pkey" primary key ("id"),
      constraint "webhook_workspace_id_foreign" foreign key ("workspace_id") references "workspace" ("id") on delete cascade
    );`);
    this.addSql(`create index "webhook_workspace_index" on "webhook" ("workspace_id", "created_at");`);

    this.addSql(`create table "monitor" (
      "id" uuid not null,
      "workspace_id" uuid not null,
      "name" varchar(120) not null,
      "target" jsonb not null,
      "sources" jsonb not null,
      "schedule" text not null check ("schedule" in ('manual', 'hourly', 'daily', 'weekly')),
      "status" text not null default 'active' check ("status" in ('active', 'paused', 'archived')),
      "webhook_id" uuid null,
      "backfill" int not null default 0,
      "baseline_at" timestamptz null,
      "last_run_at" timestamptz null,
      "next_run_at" timestamptz null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "monitor_pkey" primary key ("id"),
      constraint "monitor_workspace_id_foreign" foreign key ("workspace_id") references "workspace" ("id") on delete cascade,
      constraint "monitor_webhook_id_foreign" foreign key ("webhook_id") references "webhook" ("id") on delete set null
    );`);
    this.addSql(`create index "monitor_workspace_index" on "monitor" ("workspace_id", "created_at");`);

    this.addSql(`create table "monitor_run" (
      "id" uuid not null,
      "monitor_id" uuid not null,
      "status" text not null check ("status" in ('queued', 'running', 'succeeded', 'failed', 'skipped')),
      "trigger" text not null check ("trigger" in ('schedule', 'manual')),
      "attempts" int not null default 0,
      "started_at" timestamptz null,
      "finished_at" timestamptz null,
      "results_found" int not null default 0,
      "new_results" int not null default 0,
      "suppressed" jsonb not null default '{}',
      "credits_used" int not null default 0,
      "error_summary" text null,
      "created_at" timestamptz not null,
      constraint "monitor_run_pkey" primary key ("id"),
      constraint "monitor_run_monitor_id_foreign" foreign key ("monitor_id") references "monitor" ("id") on delete cascade
    );`);
    this.addSql(`create index "monitor_run_monitor_index" on "monitor_run" ("monitor_id", "created_at");`);
    // Run-now is idempotent while a run waits: at most one queued run per monitor, enforced here, not by the job store.
    this.addSql(`create unique index "monitor_run_one_queued" on "monitor_run" ("monitor_id") where "status" = 'queued';`);

    this.addSql(`create table "monitor_seen" (
      "monitor_id" uuid not null,
      "key" text not null,
      "first_seen_at" timestamptz not null,
      constraint "monitor_seen_pkey" primary key ("monitor_id", "key"),
      constraint "monitor_seen_monitor_id_foreign" foreign key ("monitor_id") references "monitor" ("id") on delete cascade
    );`);

    this.addSql(`create table "monitor_result" (
      "id" uuid not null,
      "monitor_id" uuid not null,
      "run_id" uuid not null,
      "item_type" text not null check ("item_type" in ('post', 'comment')),
      "source" text not null,
      "external_id" text null,
      "url" text not null,
      "title" text null,
      "body" text null,
      "author_handle" text null,
      "community_name" text null,
      "first_seen_at" timestamptz not null,
      constraint "monitor_result_pkey" primary key ("id"),
      constraint "monitor_result_monitor_id_foreign" foreign key ("monitor_id") references "monitor" ("id") on delete cascade
    );`);
    this.addSql(`create index "monitor_result_monitor_index" on "monitor_result" ("monitor_id", "first_seen_at");`);

    this.addSql(`create table "webhook_delivery" (
      "id" uuid not null,
      "webhook_id" uuid not null,
      "event_id" text not null,
      "event_type" text not null,
      "payload" jsonb not null,
      "status" text not null check ("status" in ('pending', 'succeeded', 'retrying', 'failed')),
      "attempts" int not null default 0,
      "last_status_code" int null,
      "last_error" text null,
      "delivered_at" timestamptz null,
      "next_attempt_at" timestamptz null,
      "created_at" timestamptz not null,
      constraint "webhook_delivery_pkey" primary key ("id"),
      constraint "webhook_delivery_event_unique" unique ("webhook_id", "event_id"),
      constraint "webhook_delivery_webhook_id_foreign" foreign key ("webhook_id") references "webhook" ("id") on delete cascade
    );`);
    this.addSql(`create index "webhook_delivery_webhook_index" on "webhook_delivery" ("webhook_id", "created_at");`);
    this.addSql(`create index "webhook_delivery_due_index" on "webhook_delivery" ("next_attempt_at") where "status" in ('pending', 'retrying');`);

    this.addSql(`create table "webhook_attempt" (
      "id" uuid not null,
      "delivery_id" uuid not null,
      "number" int not null,
      "trigger" text not null check ("trigger" in ('scheduled', 'manual', 'redeliver', 'test')),
      "status_code" int null,
      "error" text null,
      "duration_ms" int not null,
      "response_excerpt" text null,
      "created_at" timestamptz not null,
      constraint "webhook_attempt_pkey" primary key ("id"),
      constraint "webhook_attempt_delivery_id_foreign" foreign key ("delivery_id") references "webhook_delivery" ("id") on delete cascade,
      constraint "webhook_attempt_number_unique" unique ("delivery_id", "number")
    );`);
  }

  override down(): void {
    for (const table of ['webhook_attempt', 'webhook_delivery', 'monitor_result', 'monitor_seen', 'monitor_run', 'monitor', 'webhook']) {
      this.addSql(`drop table if exists "${table}";`);
    }
  }
}
