import { defineEntity, p } from '@mikro-orm/core';

/**
 * One service instance's slice of a workspace's credits (docs/billing.md, "Leases"): counted as held until
 * `expiresAt` passes by the database's clock; deleted by the sweep. No foreign key, as for reservations.
 */
export const BillingLease = defineEntity({
  name: 'BillingLease',
  tableName: 'billing_lease',
  indexes: [{ name: 'billing_lease_workspace_id_expires_at_index', properties: ['workspaceId', 'expiresAt'] }],
  checks: [{ name: 'billing_lease_credits_check', expression: 'credits >= 0 and in_flight >= 0' }],
  properties: {
    id: p.uuid().primary(),
    workspaceId: p.uuid(),
    instance: p.text(),
    credits: p.bigint('number'),
    inFlight: p.bigint('number').defaultRaw('0'),
    seq: p.bigint('number'),
    recalled: p.boolean().default(false),
    expiresAt: p.datetime().columnType('timestamptz'),
    syncedAt: p.datetime().columnType('timestamptz'),
    createdAt: p.datetime().columnType('timestamptz'),
  },
});
