import { defineEntity, p } from '@mikro-orm/core';
import { BillingAccount } from './billing-account.ts';

export const LEDGER_KINDS = ['grant', 'grant_expiry', 'purchase', 'refund', 'charge'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/**
 * One immutable change to a balance. `credits` is signed and split into the free-grant part and the bought
 * part, so the ledger alone yields the balance, the free grant left and the bought credits left.
 */
export const BillingLedgerEntry = defineEntity({
  name: 'BillingLedgerEntry',
  tableName: 'billing_ledger_entry',
  indexes: [{ name: 'billing_ledger_entry_workspace_id_id_index', properties: ['account', 'id'] }],
  checks: [
    { name: 'billing_ledger_entry_kind_check', expression: `kind in ('grant', 'grant_expiry', 'purchase', 'refund', 'charge')` },
    { name: 'billing_ledger_entry_parts_check', expression: 'credits = free_credits + bought_credits' },
  ],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    account: () => p.manyToOne(BillingAccount).fieldName('workspace_id').deleteRule('cascade'),
    kind: p.text().$type<LedgerKind>(),
    credits: p.bigint('number'),
    freeCredits: p.bigint('number'),
    boughtCredits: p.bigint('number'),
    usdCents: p.bigint('number').defaultRaw('0'),
    reservationId: p.uuid().nullable(),
    note: p.text().nullable(),
    createdAt: p.datetime().columnType('timestamptz'),
  },
});
