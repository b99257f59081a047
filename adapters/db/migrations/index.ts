import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121000000_identity } from './Migration20261121000000_identity.ts';
import { Migration20261121000100_billing } from './Migration20261121000100_billing.ts';
import { Migration20261121000200_paging_state } from './Migration20261121000200_paging_state.ts';
import { Migration20261124000000_jobs } from './Migration20261124000000_jobs.ts';
import { Migration20261124000100_monitors_webhooks } from './Migration20261124000100_monitors_webhooks.ts';
import { Migration20261124000200_idempotency } from './Migration20261124000200_idempotency.ts';
import { Migration20261124000300_operator_audit } from './Migration20261124000300_operator_audit.ts';
import { Migration20261124100000_credit_leases } from './Migration20261124100000_credit_leases.ts';
import { Migration20261124200000_people } from './Migration20261124200000_people.ts';
import { Migration20261124300000_oauth } from './Migration20261124300000_oauth.ts';
import { Migration20261124400000_usage_charge } from './Migration20261124400000_usage_charge.ts';
import { Migration20261124500000_api_key_changes } from './Migration20261124500000_api_key_changes.ts';
import { Migration20261124510000_monitor_schedule_unique } from './Migration20261124510000_monitor_schedule_unique.ts';
import { Migration20261124600000_holds_by_database_clock } from './Migration20261124600000_holds_by_database_clock.ts';
import { Migration20261125001000_oauth_keys_out_of_database } from './Migration20261125001000_oauth_keys_out_of_database.ts';
import { Migration20261125002000_key_change_ids } from './Migration20261125002000_key_change_ids.ts';
import { Migration20261125003000_access_token_changes } from './Migration20261125003000_access_token_changes.ts';
import { Migration20261125005000_idempotency_secrets_purged } from './Migration20261125005000_idempotency_secrets_purged.ts';
import { Migration20261125004000_oauth_sessions_hashed } from './Migration20261125004000_oauth_sessions_hashed.ts';
import { Migration20261125006000_platform_text_storable } from './Migration20261125006000_platform_text_storable.ts';
import { Migration20261125007000_monitor_result_published_at } from './Migration20261125007000_monitor_result_published_at.ts';

/** Every committed migration, in order; each domain appends its own (one line each). */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261121000000_identity', class: Migration20261121000000_identity },
  { name: 'Migration20261121000100_billing', class: Migration20261121000100_billing },
  { name: 'Migration20261121000200_paging_state', class: Migration20261121000200_paging_state },
  { name: 'Migration20261124000000_jobs', class: Migration20261124000000_jobs },
  { name: 'Migration20261124000100_monitors_webhooks', class: Migration20261124000100_monitors_webhooks },
  { name: 'Migration20261124000200_idempotency', class: Migration20261124000200_idempotency },
  { name: 'Migration20261124000300_operator_audit', class: Migration20261124000300_operator_audit },
  { name: 'Migration20261124100000_credit_leases', class: Migration20261124100000_credit_leases },
  { name: 'Migration20261124200000_people', class: Migration20261124200000_people },
  { name: 'Migration20261124300000_oauth', class: Migration20261124300000_oauth },
  { name: 'Migration20261124400000_usage_charge', class: Migration20261124400000_usage_charge },
  { name: 'Migration20261124500000_api_key_changes', class: Migration20261124500000_api_key_changes },
  { name: 'Migration20261124510000_monitor_schedule_unique', class: Migration20261124510000_monitor_schedule_unique },
  { name: 'Migration20261124600000_holds_by_database_clock', class: Migration20261124600000_holds_by_database_clock },
  { name: 'Migration20261125001000_oauth_keys_out_of_database', class: Migration20261125001000_oauth_keys_out_of_database },
  { name: 'Migration20261125002000_key_change_ids', class: Migration20261125002000_key_change_ids },
  { name: 'Migration20261125003000_access_token_changes', class: Migration20261125003000_access_token_changes },
  { name: 'Migration20261125004000_oauth_sessions_hashed', class: Migration20261125004000_oauth_sessions_hashed },
  { name: 'Migration20261125005000_idempotency_secrets_purged', class: Migration20261125005000_idempotency_secrets_purged },
  { name: 'Migration20261125006000_platform_text_storable', class: Migration20261125006000_platform_text_storable },
  { name: 'Migration20261125007000_monitor_result_published_at', class: Migration20261125007000_monitor_result_published_at },
];
