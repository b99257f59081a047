import { Migration } from '@mikro-orm/migrations';
import { HOLD_GRACE } from './Migration20261121000100_billing.ts';
import { ADMIT_WITH_LEASES, LEASE_SYNC_FUNCTION, replaced, SETTLE_WITH_LEASES } from './Migration20261124100000_credit_leases.ts';
const OLD_ADMIT = 'billing_admit(uuid, uuid, bigint, bigint, timestamptz, timestamptz, timestamptz, integer)';
const NEW_ADMIT = 'billing_admit(uuid, uuid, bigint, bigint, timestamptz, integer, timestamptz, integer)';

/**
 * Holds of the direct billing path expire by the database's clock, as leases already do: `billing_admit` sets
 * `expires_at = now() + ttl` (taking the ttl instead of an instance's expiry time) and answers it, and every
 * comparison of a hold's expiry (admission, settle, lease sync; the service's extend, usage and sweep statements)
 * uses `now()`. `p_now` keeps its other use: the instance's time for the billing month and the rows' timestamps.
 */
export class Migration20261124600000_holds_by_database_clock extends Migration {
  override name = 'Migration20261124600000_holds_by_database_clock';

  override up(): void {
    this.addSql(`drop function if exists ${OLD_ADMIT};`);
    this.addSql(ADMIT_BY_DATABASE_CLOCK);
    this.addSql(SETTLE_BY_DATABASE_CLOCK);
    this.addSql(LEASE_SYNC_BY_DATABASE_CLOCK);
  }

  override down(): void {
    this.addSql(`drop function if exists ${NEW_ADMIT};`);
    this.addSql(ADMIT_WITH_LEASES);
    this.addSql(SETTLE_WITH_LEASES);
    this.addSql(replaced(LEASE_SYNC_FUNCTION, 'create function', 'create or replace function'));
  }
}

/** Replaces each passage in turn; a passage not found is a bug in this migration. */
function rewritten(text: string, changes: [from: string, to: string][]): string {
  return changes.reduce((result, [from, to]) => replaced(result, from, to), text);
}

const LIVE_HOLD_WITH_GRACE = `.expires_at + ${HOLD_GRACE} > p_now`;
const LIVE_HOLD_WITH_GRACE_NOW = `.expires_at + ${HOLD_GRACE} > now()`;

const ADMIT_BY_DATABASE_CLOCK = rewritten(ADMIT_WITH_LEASES, [
  ['p_expires_at timestamptz', 'p_ttl_ms integer'],
  ['held bigint)', 'held bigint, held_until timestamptz)'],
  ['  v_held bigint;\n', '  v_held bigint;\n  v_until timestamptz;\n'],
  [`h${LIVE_HOLD_WITH_GRACE}`, `h${LIVE_HOLD_WITH_GRACE_NOW}`],
  [
    'values (p_reservation, p_workspace, v_held, p_expires_at, p_now);',
    `values (p_reservation, p_workspace, v_held, now() + p_ttl_ms * interval '1 millisecond', now())
    returning billing_reservation.expires_at into v_until;`,
  ],
  ['select v_balance, v_reserved, v_paused, v_stale, v_held;', 'select v_balance, v_reserved, v_paused, v_stale, v_held, v_until;'],
]);

const SETTLE_BY_DATABASE_CLOCK = rewritten(SETTLE_WITH_LEASES, [
  ['where id = p_reservation and expires_at > p_now', 'where id = p_reservation and expires_at > now()'],
  [`r${LIVE_HOLD_WITH_GRACE}`, `r${LIVE_HOLD_WITH_GRACE_NOW}`],
]);

const LEASE_SYNC_BY_DATABASE_CLOCK = rewritten(LEASE_SYNC_FUNCTION, [
  ['create function', 'create or replace function'],
  [`h${LIVE_HOLD_WITH_GRACE}`, `h${LIVE_HOLD_WITH_GRACE_NOW}`],
]);
