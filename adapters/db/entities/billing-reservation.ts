import { defineEntity, p } from '@mikro-orm/core';

/**
 * Credits held by one billed call in flight; ignored once `expiresAt` passes, deleted by the sweep. No foreign
 * key: a reservation lives for seconds, and an FK check would lock the hot account row on every admission.
 */
export const BillingReservation = defineEntity({
  name: 'BillingReservation',
  tableName: 'billing_reservation',
  indexes: [{ name: 'billing_reservation_workspace_id_expires_at_index', properties: ['workspaceId', 'expiresAt'] }],
  checks: [{ name: 'billing_reservation_credits_check', expression: 'credits > 0' }],
  properties: {
    id: p.uuid().primary(),
    workspaceId: p.uuid(),
    credits: p.bigint('number'),
    expiresAt: p.datetime().columnType('timestamptz'),
    createdAt: p.datetime().columnType('timestamptz'),
  },
});
