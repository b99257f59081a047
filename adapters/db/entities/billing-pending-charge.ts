import { defineEntity, p } from '@mikro-orm/core';

/**
 * A settled charge not yet folded into the account row and the ledger (it already counts against the balance).
 * No foreign key, for the same reason as reservations: settlement must not lock the hot account row.
 */
export const BillingPendingCharge = defineEntity({
  name: 'BillingPendingCharge',
  tableName: 'billing_pending_charge',
  indexes: [{ name: 'billing_pending_charge_workspace_id_id_index', properties: ['workspaceId', 'id'] }],
  checks: [{ name: 'billing_pending_charge_credits_check', expression: 'credits > 0' }],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    workspaceId: p.uuid(),
    reservationId: p.uuid(),
    credits: p.bigint('number'),
    createdAt: p.datetime().columnType('timestamptz'),
  },
});
