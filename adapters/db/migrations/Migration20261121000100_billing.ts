import { Migration } from '@mikro-orm/migrations';

/** Class id of the advisory locks that serialise admissions per workspace ("bill" in ASCII). */
export const ADMISSION_LOCK_CLASS = 0x62696c6c;
/**
 * An expired hold keeps counting against admissions for this long, while settle accepts it lock-free only before
 * it expires. Admit and settle each judge expiry by their own instance's clock; without the margin, an admit could
 * hand a just-expired hold's credits to another call while the hold's own settle, a moment behind, still charged
 * it in full. Between expiry and the end of the grace, settle takes the locked path and charges only what is free.
 */
export const HOLD_GRACE = "interval '60 seconds'";

/**
 * Credits: one account row per workspace (a projection of its ledger, kept in the same statement as every
 * ledger row), the immutable ledger, short-lived reservations of calls in flight, settled charges waiting to be
 * folded into the ledger, and the shared rate-limit counters (rate-limiter-flexible's RateLimiterPostgres layout,
 * created here so no instance runs DDL at start).
 * The two statements of every billed call (admit, settle) and the fold are PL/pgSQL functions: one round trip
 * each, and their plans are cached per connection instead of being planned again inside the admission lock.
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

    this.addSql(FOLD_FUNCTION);
    this.addSql(ADMIT_FUNCTION);
    this.addSql(SETTLE_FUNCTION);

    this.addSql(`create table "billing_rate_limit" (
      "key" varchar(255) not null,
      "points" integer not null default 0,
      "expire" bigint null,
      constraint "billing_rate_limit_pkey" primary key ("key")
    );`);
  }

  override down(): void {
    this.addSql('drop function if exists billing_settle(uuid, uuid, bigint, timestamptz);');
    this.addSql('drop function if exists billing_admit(uuid, uuid, bigint, bigint, timestamptz, timestamptz, timestamptz, integer);');
    this.addSql('drop function if exists billing_fold(uuid, integer, timestamptz);');
    this.addSql('drop table if exists "billing_rate_limit";');
    this.addSql('drop table if exists "billing_pending_charge";');
    this.addSql('drop table if exists "billing_reservation";');
    this.addSql('drop table if exists "billing_ledger_entry";');
    this.addSql('drop table if exists "billing_account";');
  }
}

/**
 * Folds pending charges into ledger rows and the account row, in settlement order, free grant first, once at
 * least p_fold_at_least are waiting (admissions fold in batches: one write of a hot account row per batch).
 * Only charges up to the end of the account's grant period are folded, so a charge made after the month turned
 * waits for the renewal and is paid from the new grant. Charges are capped at the folded balance: the admission
 * rules keep them within it, the cap only guards the CHECK constraints against clock skew between instances.
 * The account row is locked only when there is work.
 */
export const FOLD_FUNCTION = `create function billing_fold(p_workspace uuid, p_fold_at_least integer, p_now timestamptz)
returns integer language plpgsql as $$
declare
  v_folded integer;
begin
  with taken as (
    delete from billing_pending_charge p
    where p.workspace_id = p_workspace
      and (select count(*) from billing_pending_charge b where b.workspace_id = p_workspace) >= p_fold_at_least
      and p.created_at < (
        select coalesce((a.free_period_start at time zone 'UTC' + interval '1 month') at time zone 'UTC', 'infinity'::timestamptz)
        from billing_account a where a.workspace_id = p_workspace)
    returning p.id, p.reservation_id, p.credits, p.created_at
  ), account as (
    select a.free_remaining, a.free_remaining + a.bought_remaining as total
    from billing_account a where a.workspace_id = p_workspace and exists (select 1 from taken)
    for no key update
  ), capped as (
    select t.id, t.reservation_id, t.created_at,
      greatest(0, least(t.credits, a.total - coalesce(sum(t.credits) over earlier, 0))) as charge
    from taken t cross join account a
    window earlier as (order by t.id rows between unbounded preceding and 1 preceding)
  ), split as (
    select c.id, c.reservation_id, c.created_at, c.charge,
      greatest(0, least(c.charge, a.free_remaining - coalesce(sum(c.charge) over earlier, 0))) as free_part
    from capped c cross join account a
    window earlier as (order by c.id rows between unbounded preceding and 1 preceding)
  ), entries as (
    insert into billing_ledger_entry (workspace_id, kind, credits, free_credits, bought_credits, reservation_id, created_at)
    select p_workspace, 'charge', -charge, -free_part, free_part - charge, reservation_id, created_at
    from split where charge > 0 order by id
    returning id
  ), applied as (
    update billing_account a
    set free_remaining = a.free_remaining - s.free_sum, bought_remaining = a.bought_remaining - s.bought_sum,
        updated_at = p_now
    from (select coalesce(sum(free_part), 0) as free_sum, coalesce(sum(charge - free_part), 0) as bought_sum,
            count(*) as n
          from split) s
    where a.workspace_id = p_workspace and s.n > 0
    returning 1
  )
  select count(*)::integer into v_folded from taken;
  return v_folded;
end $$;`;

/**
 * Admits a billed call: serialised per workspace by an advisory lock, it reads the balance (account row minus
 * pending charges) and the live holds in one snapshot and, when available covers the minimum, holds
 * min(reserve, available). Its commit does not wait for the disk: the lock is then held for execution only,
 * not for a WAL flush. A hold lost in a server crash only frees credits early; a lost fold leaves its charges
 * pending, still counted. stale = the free grant must be renewed first (the caller does, then calls again).
 */
export const ADMIT_FUNCTION = `create function billing_admit(p_workspace uuid, p_reservation uuid, p_reserve bigint,
  p_minimum bigint, p_now timestamptz, p_expires_at timestamptz, p_period_start timestamptz, p_fold_at_least integer)
returns table (balance bigint, reserved bigint, spending_paused boolean, stale boolean, held bigint)
language plpgsql as $$
declare
  v_balance bigint;
  v_reserved bigint;
  v_paused boolean;
  v_stale boolean;
  v_pending_rows bigint;
  v_held bigint;
begin
  perform set_config('synchronous_commit', 'off', true);
  perform pg_advisory_xact_lock(${ADMISSION_LOCK_CLASS}, hashtext(p_workspace::text));
  select a.free_remaining + a.bought_remaining - p.total, r.total, a.spending_paused,
      a.receives_free_grant and (a.free_period_start is null or a.free_period_start < p_period_start), p.n
    into v_balance, v_reserved, v_paused, v_stale, v_pending_rows
  from billing_account a
  cross join lateral (select coalesce(sum(c.credits), 0)::bigint as total, count(*) as n
    from billing_pending_charge c where c.workspace_id = p_workspace) p
  cross join lateral (select coalesce(sum(h.credits), 0)::bigint as total
    from billing_reservation h where h.workspace_id = p_workspace and h.expires_at + ${HOLD_GRACE} > p_now) r
  where a.workspace_id = p_workspace;
  if not found then
    return;
  end if;
  if not v_stale and not v_paused and v_balance - v_reserved >= p_minimum then
    v_held := least(p_reserve, v_balance - v_reserved);
    insert into billing_reservation (id, workspace_id, credits, expires_at, created_at)
    values (p_reservation, p_workspace, v_held, p_expires_at, p_now);
  end if;
  if v_pending_rows >= p_fold_at_least then
    perform billing_fold(p_workspace, 0, p_now);
  end if;
  return query select v_balance, v_reserved, v_paused, v_stale, v_held;
end $$;`;

/**
 * Settles a call: deletes its reservation and appends its charge (at most what it held, so the balance stays
 * covered) without writing the workspace's account row, so settlements of a hot workspace do not queue behind
 * each other's commits. A call that outlived its reservation is charged, under the admission lock, only what is
 * available now: once it expired, others may have been admitted against those credits.
 */
export const SETTLE_FUNCTION = `create function billing_settle(p_reservation uuid, p_workspace uuid, p_charge bigint, p_now timestamptz)
returns table (charged bigint, remaining bigint)
language plpgsql as $$
declare
  v_live integer;
  v_balance bigint;
  v_charge bigint;
begin
  with released as (
    delete from billing_reservation where id = p_reservation and expires_at > p_now returning workspace_id
  ), appended as (
    insert into billing_pending_charge (workspace_id, reservation_id, credits, created_at)
    select workspace_id, p_reservation, p_charge, p_now from released where p_charge > 0
    returning credits
  )
  select count(*)::integer into v_live from released;

  if v_live = 0 then
    perform pg_advisory_xact_lock(${ADMISSION_LOCK_CLASS}, hashtext(p_workspace::text));
    delete from billing_reservation where id = p_reservation;
    select greatest(0, least(p_charge, a.free_remaining + a.bought_remaining
        - (select coalesce(sum(p.credits), 0) from billing_pending_charge p where p.workspace_id = p_workspace)
        - (select coalesce(sum(r.credits), 0) from billing_reservation r
            where r.workspace_id = p_workspace and r.expires_at + ${HOLD_GRACE} > p_now)))
      into v_charge
    from billing_account a where a.workspace_id = p_workspace;
    v_charge := coalesce(v_charge, 0);
    if v_charge > 0 then
      insert into billing_pending_charge (workspace_id, reservation_id, credits, created_at)
      values (p_workspace, p_reservation, v_charge, p_now);
    end if;
  else
    v_charge := p_charge;
  end if;

  select a.free_remaining + a.bought_remaining
      - (select coalesce(sum(p.credits), 0) from billing_pending_charge p where p.workspace_id = p_workspace)
    into v_balance
  from billing_account a where a.workspace_id = p_workspace;
  return query select v_charge, greatest(0, coalesce(v_balance, 0));
end $$;`;
