/**
 * The SQL of the credits service (`:name` placeholders, see `bind`).
 *
 * Where the balance lives: balance = account row (free + bought: the folded ledger) − pending charges.
 * A billed call is two round trips, both PL/pgSQL functions of the billing migration: `billing_admit`
 * (serialised per workspace by an advisory lock; holds credits; folds pending charges into ledger rows in
 * batches) and `billing_settle` (deletes the hold and appends a pending charge, never writing the hot account
 * row). Everything else here is operator or housekeeping work.
 */

/** Class id of the advisory locks that serialise admissions per workspace ("bill" in ASCII; same as the migration). */
const ADMISSION_LOCK_CLASS = 0x62696c6c;

/**
 * How long an expired hold still counts as held (same margin as `billing_admit`; see docs/billing.md): a settle
 * judges its hold live at its transaction's start and commits later, so admissions keep counting it meanwhile.
 */
const HOLD_GRACE = "interval '60 seconds'";

/** Waits for admissions on this workspace to finish; released at commit. Same key as `billing_admit`. */
export const LOCK_ADMISSIONS = `select pg_advisory_xact_lock(${ADMISSION_LOCK_CLASS}, hashtext(:workspaceId::uuid::text)) is null as locked`;

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

/** Folds pending charges into ledger rows once at least `:foldAtLeast` wait (see `billing_fold`). */
export const FOLD = `select billing_fold(:workspaceId::uuid, :foldAtLeast::int, :now::timestamptz) as folded`;

const PENDING = `(select coalesce(sum(p.credits), 0) from billing_pending_charge p where p.workspace_id = :workspaceId::uuid)`;
const RESERVED = `(select coalesce(sum(r.credits), 0) from billing_reservation r
  where r.workspace_id = :workspaceId::uuid and r.expires_at + ${HOLD_GRACE} > now())`;
/** Live holds (above) and leases, by the database's clock (see the credit-leases and holds migrations). */
const LEASES = `from billing_lease l where l.workspace_id = :workspaceId::uuid and l.expires_at > now()`;
/** What admissions must leave alone: holds of calls in flight and every live lease's whole slice. */
const HELD = `(${RESERVED} + (select coalesce(sum(l.credits), 0) ${LEASES}))`;
/** What the Usage object reports as reserved: calls in flight, direct or on a lease; a lease's unused part is not. */
const IN_FLIGHT = `(${RESERVED} + (select coalesce(sum(l.in_flight), 0) ${LEASES}))`;

/** One row: balance, reserved, spending_paused, stale, held and held_until (null when refused); see `billing_admit`. */
export const ADMIT = `
select * from billing_admit(:workspaceId::uuid, :reservationId::uuid, :reserve::bigint, :minimum::bigint,
  :now::timestamptz, :ttlMs::int, :periodStart::timestamptz, :foldAtLeast::int)`;

/** One row: charged, remaining (the balance after it); see `billing_settle`. */
export const SETTLE = `select * from billing_settle(:reservationId::uuid, :workspaceId::uuid, :charge::bigint, :now::timestamptz)`;

export const RELEASE = `delete from billing_reservation where id = :reservationId::uuid`;

/**
 * Grows a live hold by :extra when the credits no hold covers allow it; run after LOCK_ADMISSIONS in the same
 * transaction. One row (the hold's new size) when grown, none when refused.
 */
export const EXTEND = `
update billing_reservation r set credits = r.credits + :extra::bigint
from billing_account a
where r.id = :reservationId::uuid and r.expires_at > now() and a.workspace_id = :workspaceId::uuid
  and not a.spending_paused
  and a.free_remaining + a.bought_remaining - ${PENDING} - ${HELD} >= :extra::bigint
returning r.credits`;

/** The account with its pending charges and live holds; `stale` as in ADMIT. */
export const READ_ACCOUNT = `
select a.receives_free_grant, a.spending_paused, a.free_granted, a.free_remaining, a.bought_remaining,
  a.net_purchase_cents, ${STALE} as stale, ${PENDING} as pending, ${IN_FLIGHT} as reserved
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
 * in flight, and lowers net purchases by the dollars those credits are worth: all of `usdCents` when every credit
 * asked is taken back (or none was asked), else `usdCents × taken back / asked` rounded down to a whole cent. Books
 * nothing when the dollars asked exceed the net purchases, nor, unless `partial`, when fewer credits than asked are
 * free; the one row says what was decided either way.
 */
export const REFUND = `
with decision as (
  select a.workspace_id, a.net_purchase_cents >= :usdCents::bigint as within_net,
    greatest(0, least(:credits::bigint, a.bought_remaining,
      a.free_remaining + a.bought_remaining - ${PENDING} - ${HELD}))::bigint as clawback
  from billing_account a where a.workspace_id = :workspaceId::uuid
  for no key update
), priced as (
  -- bigint division: rounded down to a whole cent.
  select d.*, case when d.clawback = :credits::bigint then :usdCents::bigint else (:usdCents::bigint * d.clawback) / :credits::bigint end as usd_cents
  from decision d
), updated as (
  update billing_account a
  set bought_remaining = a.bought_remaining - p.clawback, net_purchase_cents = a.net_purchase_cents - p.usd_cents,
      updated_at = :now::timestamptz
  from priced p where a.workspace_id = p.workspace_id and p.within_net and (:partial::boolean or p.clawback = :credits::bigint)
  returning p.clawback, p.usd_cents
), entry as (
  insert into billing_ledger_entry (workspace_id, kind, credits, free_credits, bought_credits, usd_cents, note, created_at)
  select :workspaceId::uuid, 'refund', -clawback, 0, -clawback, -usd_cents, :note::text, :now::timestamptz
  from updated
  returning id
)
select p.within_net, p.clawback, p.usd_cents, exists (select 1 from updated) as booked from priced p`;

export const SET_SPENDING_PAUSED = `
update billing_account set spending_paused = :paused::boolean, updated_at = :now::timestamptz
where workspace_id = :workspaceId::uuid returning spending_paused`;

/** Newest first. */
export const LIST_LEDGER = `
select id, kind, credits, free_credits, bought_credits, usd_cents, reservation_id, note, created_at
from billing_ledger_entry where workspace_id = :workspaceId::uuid order by id desc limit :limit::int`;

/**
 * Expired holds and leases (by the database's clock), plus pending charges whose account was deleted with its workspace (pending charges carry no
 * foreign key, so the cascade does not reach them).
 */
export const SWEEP_RESERVATIONS = `
with swept as (delete from billing_reservation where expires_at + ${HOLD_GRACE} <= now() returning 1),
leases as (delete from billing_lease where expires_at <= now()),
orphans as (
  delete from billing_pending_charge p
  where not exists (select 1 from billing_account a where a.workspace_id = p.workspace_id)
)
select count(*)::int as swept from swept`;
