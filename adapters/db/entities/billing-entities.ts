import { BillingAccount } from './billing-account.ts';
import { BillingLedgerEntry } from './billing-ledger-entry.ts';
import { BillingPendingCharge } from './billing-pending-charge.ts';
import { BillingRateLimit } from './billing-rate-limit.ts';
import { BillingReservation } from './billing-reservation.ts';
import { BillingLease } from './billing-lease.ts';

/** The billing domain's entities, appended to ENTITIES as one entry. */
export const BILLING_ENTITIES = [BillingAccount, BillingLedgerEntry, BillingReservation, BillingPendingCharge, BillingRateLimit, BillingLease];
