import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBillingFixture, type BillingFixture } from './billing-fixture.ts';

const BILLING_TABLES = ['billing_account', 'billing_lease', 'billing_ledger_entry', 'billing_pending_charge', 'billing_rate_limit', 'billing_reservation'];

describe('billing migration', () => {
  let fixture: BillingFixture;

  beforeAll(async () => {
    fixture = await openBillingFixture();
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it('creates the billing tables', async () => {
    const rows = await fixture.db.all<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' and table_name like 'billing%' order by table_name",
    );
    expect(rows.map((row) => row.table_name)).toEqual(BILLING_TABLES);
  });

  it('leaves no difference between the billing entities and the migrated schema', async () => {
    // The PL/pgSQL functions live in the migration only (no entity describes them), so the ORM would drop them.
    const diff = await fixture.orm.schema.getUpdateSchemaSQL({ wrap: false });
    const billingStatements = diff
      .split(/;\s*\n/)
      .map((statement) => statement.trim())
      .filter((statement) => /"billing_/.test(statement) && !statement.startsWith('drop function if exists "billing_'));
    expect(billingStatements).toEqual([]);
  });

  it('creates the admission, settlement, fold and lease functions', async () => {
    const rows = await fixture.db.all<{ proname: string }>(
      "select proname from pg_proc where proname like 'billing%' order by proname",
    );
    expect(rows.map((row) => row.proname)).toEqual(['billing_admit', 'billing_fold', 'billing_lease_sync', 'billing_settle']);
  });

  it('refuses a balance below zero at the database, whatever the code does', async () => {
    const workspaceId = await fixture.createWorkspace({ freeGrant: false });
    await fixture.db.all(
      `insert into billing_account (workspace_id, receives_free_grant, created_at, updated_at) values (?, false, now(), now())`,
      [workspaceId],
    );
    await expect(
      fixture.db.all(`update billing_account set bought_remaining = -1 where workspace_id = ?`, [workspaceId]),
    ).rejects.toThrow(/billing_account_bought_check/);
  });
});
