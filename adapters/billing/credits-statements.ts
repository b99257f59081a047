/**
 * The SQL of the credits service (`:name` placeholders, see `bind`). Each step is one statement with
 * data-modifying CTEs, so a billed call costs two round trips: one admission, one settlement.
 *
 * Where the balance lives: balance = account row (free + bought, the folded ledger) − pending charges.
 * Settlement appends a pending charge and deletes its reservation; it never writes the workspace's account
 * row, so settlements of one hot workspace do not queue behind each other's commits. Admissions are
 * serialised per workspace by an advisory lock and fold the pending charges into ledger rows and the account
 * row, free grant first, in settlement order.
 */

/** Class id of the advisory locks that serialise admissions per workspace ("bill" in ASCII). */
export const ADMISSION_LOCK_CLASS = 0x62696c6c;

/**
 * Admissions do not wait for their commit to reach disk: the per-workspace lock is then held while the server
 * executes, not across a WAL flush, which is what bounds a hot workspace. An admission writes only holds and
 * folds: a hold lost in a server crash just frees credits early, and a lost fold leaves its charges pending
 * (still counted). Settlements, purchases and refunds keep synchronous commits.
 */
export const ASYNC_COMMIT = `set local synchronous_commit = off`;

/** Waits for other admissions on this workspace; released at commit. */
export const LOCK_ADMISSIONS = `select pg_advisory_xact_lock(${ADMISSION_LOCK_CLASS}, hashtext(:workspaceId)) is null as locked`;

/** Opens the account on first use, copying the workspace's free-grant flag. */
export const OPEN_ACCOUNT = `
insert into billing_account (workspace_id, receives_free_grant, created_at, updated_at)
select id, receives_free_grant, :now::timestamptz, :now::timestamptz from workspace where id = :workspaceId::uuid
on conflict (workspace_id) do nothing`;

const STALE = `(receives_free_grant and (free_period_start is null or free_period_start < :periodStart::timestamptz))`;

/**
 * Replaces a past month's free grant by this month's, writing the expiry of what was left and the new grant.
 * Idempotent under races: the row lock makes a second runner see the renewed period and do nothing.
 * Run after FOLD, so last month's charges were paid from last month's grant.
 */
export const RENEW_FREE_GRANT = `
with stale as (
  select workspace_id, free_remaining from billing_account
  where workspace_id = :workspaceId::uuid and ${STALE}
  for update
), renewed as (
  update billing_account a
  set free_granted = :grant::bigint, free_remaining = :grant::bigint, free_period_start = :periodStart::timestamptz,
      updated_at = :now::timestamptz
  from stale where a.workspace_id = stale.workspace_id
  returning stale.free_remaining as expired
), entries as (
  insert into billing_ledger_entry (workspace_id, kind, credits, free_credits, bought_credits, note, created_at)
  select :workspaceId::uuid, v.kind, v.credits, v.credits, 0, v.note, :now::timestamptz
  from renewed cross join lateral (values
    (1, 'grant_expiry', -renewed.expired, :expiryNote::text),
    (2, 'grant', :grant::bigint, :grantNote::text)
  ) as v (ord, kind, credits, note)
  where v.credits <> 0
  order by v.ord
  returning id
)
select count(*)::int as renewed from renewed`;

/**
 * Folds pending charges into ledger rows and the account row, in settlement order, free grant first, once at
 * least `:foldAtLeast` are waiting (admissions fold in batches, so a hot account row is written once per batch;
 * readers of the ledger fold everything). Only charges up to the end of the account's grant period are folded,
 * so a charge made after the month turned waits for RENEW_FREE_GRANT and is paid from the new grant. Charges
 * are capped at the folded balance (the admission rules keep them within it; the cap only guards the CHECK
 * constraints against clock skew between instances). The account row is locked only when there is work.
 */
export const FOLD = `
with taken as (
  delete from billing_pending_charge p
  where p.workspace_id = :workspaceId::uuid
    and (select count(*) from billing_pending_charge b where b.workspace_id = :workspaceId::uuid) >= :foldAtLeast::int
    and p.created_at < (
      select coalesce((a.free_period_start at time zone 'UTC' + interval '1 month') at time zone 'UTC', 'infinity'::timestamptz)
      from billing_account a where a.workspace_id = :workspaceId::uuid)
  returning p.id, p.reservation_id, p.credits, p.created_at
), account as (
  select workspace_id, free_remaining, free_remaining + bought_remaining as total
  from billing_account where workspace_id = :workspaceId::uuid and exists (select 1 from taken)
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
  select :workspaceId::uuid, 'charge', -charge, -free_part, free_part - charge, reservation_id, created_at
  from split where charge > 0 order by id
  returning id
), applied as (
  update billing_account a
  set free_remaining = a.free_remaining - s.free_sum, bought_remaining = a.bought_remaining - s.bought_sum,
      updated_at = :now::timestamptz
  from (select coalesce(sum(free_part), 0) as free_sum, coalesce(sum(charge - free_part), 0) as bought_sum, count(*) as n
        from split) s
  where a.workspace_id = :workspaceId::uuid and s.n > 0
  returning 1
)
select (select count(*) from taken)::int as folded`;

const PENDING = `(select coalesce(sum(p.credits), 0) from billing_pending_charge p where p.workspace_id = :workspaceId::uuid)`;
const HELD = `(select coalesce(sum(r.credits), 0) from billing_reservation r
  where r.workspace_id = :workspaceId::uuid and r.expires_at > :now::timestamptz)`;

/**
 * Under the admission lock: reads balance and live holds in one snapshot and, when available covers the
 * minimum, holds min(reserve, available). `stale` asks the caller to renew the free grant first.
 */
export const ADMIT = `
with decision as (
  select a.free_remaining + a.bought_remaining - ${PENDING} as balance, ${HELD} as reserved,
    a.spending_paused, ${STALE} as stale
  from billing_account a where a.workspace_id = :workspaceId::uuid
), inserted as (
  insert into billing_reservation (id, workspace_id, credits, expires_at, created_at)
  select :reservationId::uuid, :workspaceId::uuid, least(:reserve::bigint, d.balance - d.reserved),
    :expiresAt::timestamptz, :now::timestamptz
  from decision d
  where not d.stale and not d.spending_paused and d.balance - d.reserved >= :minimum::bigint
  returning credits
)
select d.balance, d.reserved, d.spending_paused, d.stale, (select credits from inserted) as held from decision d`;

/**
 * Settles a live reservation: deletes it and appends its charge (at most what it held, so the balance stays
 * covered). `live` = 0 when the reservation expired or is gone: the caller then takes SETTLE_LAPSED.
 * `balance` is the balance before this charge.
 */
export const SETTLE = `
with released as (
  delete from billing_reservation where id = :reservationId::uuid and expires_at > :now::timestamptz
  returning workspace_id
), charged as (
  insert into billing_pending_charge (workspace_id, reservation_id, credits, created_at)
  select workspace_id, :reservationId::uuid, :charge::bigint, :now::timestamptz from released
  returning credits
)
select (select count(*) from released)::int as live,
  (select a.free_remaining + a.bought_remaining from billing_account a where a.workspace_id = :workspaceId::uuid)
    - ${PENDING} as balance`;

/**
 * Under the admission lock: a call that outlived its reservation is charged only what is available now
 * (others may have been admitted against the credits it held once it expired).
 */
export const SETTLE_LAPSED = `
with gone as (
  delete from billing_reservation where id = :reservationId::uuid
), decision as (
  select a.free_remaining + a.bought_remaining - ${PENDING} as balance,
    greatest(0, least(:charge::bigint, a.free_remaining + a.bought_remaining - ${PENDING} - (
      select coalesce(sum(r.credits), 0) from billing_reservation r
      where r.workspace_id = :workspaceId::uuid and r.expires_at > :now::timestamptz and r.id <> :reservationId::uuid
    ))) as charge
  from billing_account a where a.workspace_id = :workspaceId::uuid
), charged as (
  insert into billing_pending_charge (workspace_id, reservation_id, credits, created_at)
  select :workspaceId::uuid, :reservationId::uuid, charge, :now::timestamptz from decision where charge > 0
  returning credits
)
select charge, balance - charge as remaining from decision`;

export const RELEASE = `delete from billing_reservation where id = :reservationId::uuid`;

/** The account with its pending charges and live holds; `stale` as in ADMIT. */
export const READ_ACCOUNT = `
select a.receives_free_grant, a.spending_paused, a.free_granted, a.free_remaining, a.bought_remaining,
  a.net_purchase_cents, ${STALE} as stale, ${PENDING} as pending, ${HELD} as reserved
from billing_account a where a.workspace_id = :workspaceId::uuid`;

export const PURCHASE = `
with updated as (
  update billing_account
  set bought_remaining = bought_remaining + :credits::bigint, net_purchase_cents = net_purchase_cents + :usdCents::bigint,
      updated_at = :now::timestamptz
  where workspace_id = :workspaceId::uuid
  returning workspace_id
)
insert into billing_ledger_entry (workspace_id, kind, credits, free_credits, bought_credits, usd_cents, note, created_at)
select workspace_id, 'purchase', :credits::bigint, 0, :credits::bigint, :usdCents::bigint, :note::text, :now::timestamptz
from updated
returning id`;

/**
 * Under the admission lock: takes back up to `credits` bought credits that are neither spent nor held by calls
 * in flight, and lowers net purchases; refuses (no row) a refund larger than the net purchases.
 */
export const REFUND = `
with decision as (
  select a.workspace_id, a.net_purchase_cents,
    greatest(0, least(:credits::bigint, a.bought_remaining,
      a.free_remaining + a.bought_remaining - ${PENDING} - ${HELD})) as clawback
  from billing_account a where a.workspace_id = :workspaceId::uuid
  for no key update
), updated as (
  update billing_account a
  set bought_remaining = a.bought_remaining - d.clawback, net_purchase_cents = a.net_purchase_cents - :usdCents::bigint,
      updated_at = :now::timestamptz
  from decision d where a.workspace_id = d.workspace_id and d.net_purchase_cents >= :usdCents::bigint
  returning d.clawback
), entry as (
  insert into billing_ledger_entry (workspace_id, kind, credits, free_credits, bought_credits, usd_cents, note, created_at)
  select :workspaceId::uuid, 'refund', -clawback, 0, -clawback, -:usdCents::bigint, :note::text, :now::timestamptz
  from updated
  returning id
)
select (select clawback from updated) as clawback`;

export const SET_SPENDING_PAUSED = `
update billing_account set spending_paused = :paused::boolean, updated_at = :now::timestamptz
where workspace_id = :workspaceId::uuid returning spending_paused`;

/** Newest first. */
export const LIST_LEDGER = `
select id, kind, credits, free_credits, bought_credits, usd_cents, reservation_id, note, created_at
from billing_ledger_entry where workspace_id = :workspaceId::uuid order by id desc limit :limit::int`;

export const SWEEP_RESERVATIONS = `
with swept as (delete from billing_reservation where expires_at <= :now::timestamptz returning 1)
select count(*)::int as swept from swept`;
