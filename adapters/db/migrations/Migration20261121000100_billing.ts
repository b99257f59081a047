import { Migration } from '@mikro-orm/migrations';

/**
 * Credits: one account row per workspace (a projection of its ledger, kept in the same transaction as every
 * ledger row), the immutable ledger, short-lived reservations of calls in flight, settled charges waiting to be
 * folded into the ledger, and the shared rate-limit
 * counters (rate-limiter-flexible's RateLimiterPostgres layout, created here so no instance runs DDL at start).
 * PostgreSQL 15 compatible.
 */
export class Migration20261121000100_billing extends Migration {
  override name = 'Migration20261121000100_billing';

  override up(): void {
    this.addSql(`create table "billing_account" (
      "workspace_id" uuid not null,
      "receives_free_grant" boolean not null,
      "spending_paused" boolean not null default false,
      "free_granted" bigint not null default 0,
      "free_remaining" bigint not null default 0,
      "free_period_start" timestamptz null,
      "bought_remaining" bigint not null default 0,
      "net_purchase_cents" bigint not null default 0,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "billing_account_pkey" primary key ("workspace_id"),
      constraint "billing_account_workspace_id_foreign" foreign key ("workspace_id") references "workspace" ("id") on update cascade on delete cascade,
      constraint "billing_account_free_check" check ("free_remaining" >= 0 and "free_remaining" <= "free_granted"),
      constraint "billing_account_bought_check" check ("bought_remaining" >= 0),
      constraint "billing_account_net_purchase_check" check ("net_purchase_cents" >= 0)
    );`);

    this.addSql(`create table "billing_ledger_entry" (
      "id" bigserial,
      "workspace_id" uuid not null,
      "kind" text not null,
      "credits" bigint not null,
      "free_credits" bigint not null,
      "bought_credits" bigint not null,
      "usd_cents" bigint not null default 0,
      "reservation_id" uuid null,
      "note" text null,
      "created_at" timestamptz not null,
      constraint "billing_ledger_entry_pkey" primary key ("id"),
      constraint "billing_ledger_entry_kind_check" check ("kind" in ('grant', 'grant_expiry', 'purchase', 'refund', 'charge')),
      constraint "billing_ledger_entry_parts_check" check ("credits" = "free_credits" + "bought_credits"),
      constraint "billing_ledger_entry_workspace_id_foreign" foreign key ("workspace_id") references "billing_account" ("workspace_id") on delete cascade
    );`);
    this.addSql(`create index "billing_ledger_entry_workspace_id_id_index" on "billing_ledger_entry" ("workspace_id", "id");`);

    // No foreign key: a reservation lives for seconds, and an FK check would lock the hot account row on every admission.
    this.addSql(`create table "billing_reservation" (
      "id" uuid not null,
      "workspace_id" uuid not null,
      "credits" bigint not null,
      "expires_at" timestamptz not null,
      "created_at" timestamptz not null,
      constraint "billing_reservation_pkey" primary key ("id"),
      constraint "billing_reservation_credits_check" check ("credits" > 0)
    );`);
    this.addSql(`create index "billing_reservation_workspace_id_expires_at_index" on "billing_reservation" ("workspace_id", "expires_at");`);

    // Charges settled but not yet folded into the account row: settlement appends here instead of writing the
    // hot account row; the next admission on the workspace (already serialised) folds them into ledger rows.
    this.addSql(`create table "billing_pending_charge" (
      "id" bigserial,
      "workspace_id" uuid not null,
      "reservation_id" uuid not null,
      "credits" bigint not null,
      "created_at" timestamptz not null,
      constraint "billing_pending_charge_pkey" primary key ("id"),
      constraint "billing_pending_charge_credits_check" check ("credits" > 0)
    );`);
    this.addSql(`create index "billing_pending_charge_workspace_id_id_index" on "billing_pending_charge" ("workspace_id", "id");`);

    this.addSql(`create table "billing_rate_limit" (
      "key" varchar(255) not null,
      "points" integer not null default 0,
      "expire" bigint null,
      constraint "billing_rate_limit_pkey" primary key ("key")
    );`);
  }

  override down(): void {
    this.addSql('drop table if exists "billing_rate_limit";');
    this.addSql('drop table if exists "billing_pending_charge";');
    this.addSql('drop table if exists "billing_reservation";');
    this.addSql('drop table if exists "billing_ledger_entry";');
    this.addSql('drop table if exists "billing_account";');
  }
}
