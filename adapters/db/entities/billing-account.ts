import { defineEntity, p } from '@mikro-orm/core';
import { Workspace } from './workspace.ts';

/**
 * A workspace's credit account: the folded totals of its ledger (written in the same statement as each ledger
 * row), its free-grant period and its spending pause. Written by adapters/billing through SQL only.
 */
export const BillingAccount = defineEntity({
  name: 'BillingAccount',
  tableName: 'billing_account',
  checks: [
    { name: 'billing_account_free_check', expression: 'free_remaining >= 0 and free_remaining <= free_granted' },
    { name: 'billing_account_bought_check', expression: 'bought_remaining >= 0' },
    { name: 'billing_account_net_purchase_check', expression: 'net_purchase_cents >= 0' },
  ],
  properties: {
    workspace: () => p.manyToOne(Workspace).primary().deleteRule('cascade'),
    receivesFreeGrant: p.boolean(),
    spendingPaused: p.boolean().default(false),
    freeGranted: p.bigint('number').defaultRaw('0'),
    freeRemaining: p.bigint('number').defaultRaw('0'),
    freePeriodStart: p.datetime().columnType('timestamptz').nullable(),
    boughtRemaining: p.bigint('number').defaultRaw('0'),
    netPurchaseCents: p.bigint('number').defaultRaw('0'),
    /** While a refund runs, no credit lease of the workspace grows. */
    leasesFrozenUntil: p.datetime().columnType('timestamptz').nullable(),
    createdAt: p.datetime().columnType('timestamptz'),
    updatedAt: p.datetime().columnType('timestamptz'),
  },
});
