import { Migration } from '@mikro-orm/migrations';
import { ADMISSION_LOCK_CLASS, ADMIT_FUNCTION, HOLD_GRACE, SETTLE_FUNCTION } from './Migration20261121000100_billing.ts';

/** Credits held by live leases: expiry is judged by the database's clock, never an instance's. */
const LEASED = (workspace: string) => `(select coalesce(sum(l.credits), 0)::bigint from billing_lease l
    where l.workspace_id = ${workspace} and l.expires_at > now())`;

/**
 * Credit leases (docs/billing.md, "Leases"): each service instance holds a bounded, expiring slice of a
 * workspace's credits, admits and settles calls against it in memory, and books the settled charges, returns or
 * renews the slice in one statement (`billing_lease_sync`) every few tens of milliseconds. A lease's credits count
 * as held for every admission, extension, refund and late settlement until it expires by the database's clock,
 * so the credits of an instance that died come back by themselves.
 */
export class Migration20261124100000_credit_leases extends Migration {
  override name = 'Migration20261124100000_credit_leases';

  override up(): void {
    // No foreign key, as for reservations: a sync must not lock the hot account row through an FK check.
    this.addSql(`create table "billing_lease" (
      "id" uuid not null,
      "workspace_id" uuid not null,
      "instance" text not null,
      "credits" bigint not null,
      "in_flight" bigint not null default 0,
      "seq" bigint not null,
      "recalled" boolean not null default false,
      "expires_at" timestamptz not null,
      "synced_at" timestamptz not null,
      "created_at" timestamptz not null,
      constraint "billing_lease_pkey" primary key ("id"),
      constraint "billing_lease_credits_check" check ("credits" >= 0 and "in_flight" >= 0)
    );`);
    this.addSql(`create index "billing_lease_workspace_id_expires_at_index" on "billing_lease" ("workspace_id", "expires_at");`);
    // While a refund runs, no lease grows: what the instances hand back stays free for the refund to take.
    this.addSql(`alter table "billing_account" add column "leases_frozen_until" timestamptz null;`);
    this.addSql(ADMIT_WITH_LEASES);
    this.addSql(SETTLE_WITH_LEASES);
    this.addSql(LEASE_SYNC_FUNCTION);
  }

  override down(): void {
    this.addSql('drop function if exists billing_lease_sync(uuid, uuid, text, bigint, jsonb, bigint, boolean, bigint, integer, bigint, bigint, integer, timestamptz, timestamptz, integer);');
    this.addSql(ADMIT_FUNCTION.replace('create function', 'create or replace function'));
    this.addSql(SETTLE_FUNCTION.replace('create function', 'create or replace function'));
    this.addSql('alter table "billing_account" drop column if exists "leases_frozen_until";');
    this.addSql('drop table if exists "billing_lease";');
  }
}

/** Replaces one passage of an earlier function's text; a passage not found is a bug in this migration. */
export function replaced(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`migration: passage not found: ${from}`);
  return text.replace(from, to);
}

/** `billing_admit` as before, with live leases counted among the holds. */
export const ADMIT_WITH_LEASES = replaced(
  replaced(ADMIT_FUNCTION, 'create function', 'create or replace function'),
  '  if not v_stale and not v_paused and',
  `  v_reserved := v_reserved + ${LEASED('p_workspace')};
  if not v_stale and not v_paused and`,
);

/** `billing_settle` as before; a call that outlived its hold is charged only what neither holds nor leases cover. */
export const SETTLE_WITH_LEASES = replaced(
  replaced(SETTLE_FUNCTION, 'create function', 'create or replace function'),
  `where r.workspace_id = p_workspace and r.expires_at + ${HOLD_GRACE} > p_now)))`,
  `where r.workspace_id = p_workspace and r.expires_at + ${HOLD_GRACE} > p_now)
        - ${LEASED('p_workspace')}))`,
);

/**
 * One round trip per lease and sync interval, under the workspace's admission lock:
 * 1. Books the charges settled against the lease since the last sync (one pending charge each, keeping its call's
 *    id), in order, each capped by what the lease (and, for a lease that expired meanwhile, what no one holds)
 *    covers: the balance can never go negative.
 * 2. Takes back `p_return` credits the instance set aside, and records its calls in flight (shown as reserved).
 * 3. Unless the instance drains the lease, or spending is paused, the free grant is stale, a refund has frozen
 *    leases or the lease was recalled, grows it towards its target: 1/p_divisor of what no one else holds, at most
 *    p_cap, nothing below p_min (a small account is served call by call). Renews the expiry by the database clock.
 * `p_seq` makes a retry after a lost answer harmless: a sequence number already applied changes nothing and
 * answers applied = false, so the instance drops what it had sent and syncs again.
 */
export const LEASE_SYNC_FUNCTION = `create function billing_lease_sync(p_lease uuid, p_workspace uuid, p_instance text, p_seq bigint,
  p_charges jsonb, p_return bigint, p_drain boolean, p_in_flight bigint, p_ttl_ms integer, p_cap bigint, p_min bigint,
  p_divisor integer, p_now timestamptz, p_period_start timestamptz, p_fold_at_least integer)
returns table (applied boolean, credits bigint, charged bigint, target bigint, balance bigint, recalled boolean,
  stale boolean, spending_paused boolean)
language plpgsql as $$
declare
  v_seq bigint;
  v_live boolean;
  v_credits bigint := 0;
  v_recalled boolean := false;
  v_total bigint;
  v_paused boolean;
  v_stale boolean;
  v_frozen boolean;
  v_pending bigint;
  v_pending_rows bigint;
  v_others bigint;
  v_cover bigint;
  v_take bigint;
  v_charged bigint := 0;
  v_target bigint := 0;
  c record;
begin
  perform pg_advisory_xact_lock(${ADMISSION_LOCK_CLASS}, hashtext(p_workspace::text));
  select a.free_remaining + a.bought_remaining, a.spending_paused,
      a.receives_free_grant and (a.free_period_start is null or a.free_period_start < p_period_start),
      coalesce(a.leases_frozen_until > now(), false)
    into v_total, v_paused, v_stale, v_frozen
  from billing_account a where a.workspace_id = p_workspace;
  if not found then
    return;
  end if;
  select coalesce(sum(p.credits), 0)::bigint, count(*) into v_pending, v_pending_rows
  from billing_pending_charge p where p.workspace_id = p_workspace;

  select l.seq, l.expires_at > now(), l.credits, l.recalled into v_seq, v_live, v_credits, v_recalled
  from billing_lease l where l.id = p_lease and l.workspace_id = p_workspace;
  if found and v_seq >= p_seq then
    return query select false, case when v_live then v_credits else 0::bigint end, 0::bigint, 0::bigint,
      greatest(0, v_total - v_pending), v_recalled, v_stale, v_paused;
    return;
  end if;
  if not coalesce(v_live, false) then
    v_credits := 0;
    v_recalled := false;
  end if;

  v_others := (select coalesce(sum(h.credits), 0)::bigint from billing_reservation h
      where h.workspace_id = p_workspace and h.expires_at + ${HOLD_GRACE} > p_now)
    + (select coalesce(sum(l.credits), 0)::bigint from billing_lease l
      where l.workspace_id = p_workspace and l.id <> p_lease and l.expires_at > now());
  v_cover := v_credits + greatest(0, v_total - v_pending - v_others - v_credits);
  for c in
    select (e->>'id')::uuid as id, (e->>'credits')::bigint as credits, (e->>'at')::timestamptz as at
    from jsonb_array_elements(p_charges) with ordinality as t (e, n) order by n
  loop
    v_take := least(c.credits, v_cover);
    if v_take > 0 then
      insert into billing_pending_charge (workspace_id, reservation_id, credits, created_at)
      values (p_workspace, c.id, v_take, c.at);
      v_cover := v_cover - v_take;
      v_charged := v_charged + v_take;
      v_pending := v_pending + v_take;
      v_pending_rows := v_pending_rows + 1;
    end if;
  end loop;
  v_credits := greatest(0, v_credits - v_charged - p_return);

  if not (p_drain or v_paused or v_stale or v_frozen or v_recalled) then
    v_target := least(p_cap, (v_total - v_pending - v_others) / p_divisor);
    if v_target < p_min then
      v_target := 0;
    end if;
    v_credits := v_credits + greatest(0, least(v_target - v_credits, v_total - v_pending - v_others - v_credits));
  end if;

  insert into billing_lease as l (id, workspace_id, instance, credits, in_flight, seq, recalled, expires_at, synced_at, created_at)
  values (p_lease, p_workspace, p_instance, v_credits, p_in_flight, p_seq, false,
    now() + p_ttl_ms * interval '1 millisecond', now(), now())
  on conflict (id) do update set credits = excluded.credits, in_flight = excluded.in_flight, seq = excluded.seq,
    recalled = l.recalled and l.expires_at > now() and not p_drain, expires_at = excluded.expires_at,
    synced_at = excluded.synced_at;

  if v_pending_rows >= p_fold_at_least then
    perform billing_fold(p_workspace, 0, p_now);
  end if;
  return query select true, v_credits, v_charged, v_target, greatest(0, v_total - v_pending), v_recalled, v_stale, v_paused;
end $$;`;
