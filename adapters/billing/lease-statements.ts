/**
 * The SQL of credit leases (`:name` placeholders, see `bind`). A lease's expiry, and every "since" below, is
 * judged by the database's clock (`now()`), never by an instance's.
 */

/** One row (see `billing_lease_sync` in the credit-leases migration); none when the account does not exist yet. */
export const SYNC = `
select * from billing_lease_sync(:leaseId::uuid, :workspaceId::uuid, :instance::text, :seq::bigint, :charges::jsonb,
  :giveBack::bigint, :drain::boolean, :inFlight::bigint, :ttlMs::int, :cap::bigint, :min::bigint, :divisor::int,
  :now::timestamptz, :periodStart::timestamptz, :foldAtLeast::int)`;

/** Live leases of other instances that still hold credits. */
const OTHERS = `workspace_id = :workspaceId::uuid and id <> :exceptLease::uuid and expires_at > now() and credits > 0`;

/** Asks the other instances to hand their unused slices back at their next sync. */
export const RECALL = `
with recalled as (update billing_lease set recalled = true where ${OTHERS} returning 1)
select count(*)::int as recalled from recalled`;

/**
 * Other live leases still recalled, or not synced (so not flushed) since `:since` (null: now); `at` is the
 * database's time, the `since` of the next look.
 */
export const OUTSTANDING = `
select now() as at, count(*) filter (where recalled)::int as recalled,
  count(*) filter (where synced_at < coalesce(:since::timestamptz, now()))::int as behind
from billing_lease where ${OTHERS}`;

/** While a refund runs no lease grows (`billing_lease_sync` grants nothing); the bound outlives a crashed refund. */
export const FREEZE = `
update billing_account set leases_frozen_until = now() + :ms::int * interval '1 millisecond'
where workspace_id = :workspaceId::uuid returning workspace_id`;

export const UNFREEZE = `update billing_account set leases_frozen_until = null where workspace_id = :workspaceId::uuid returning workspace_id`;
