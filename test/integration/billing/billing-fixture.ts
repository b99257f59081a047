import { randomUUID } from 'node:crypto';
import { sqlDbFromOrm, type SqlDb } from '../../../adapters/db/sql.ts';
import { initOrm, type Orm } from '../../../adapters/db/orm.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';

/** A test file's own database with the service's migrations applied, and billing's SQL access to it. */
export interface BillingFixture {
  database: TestDatabase;
  orm: Orm;
  db: SqlDb;
  /** Another ORM (own pool) on the same database: a second service instance. */
  openInstance(): Promise<Orm>;
  createWorkspace(options: { freeGrant: boolean }): Promise<string>;
  /** Moves a hold's expiry to `offsetMs` from the database's now (negative: into its past), as time passing would. */
  moveHoldExpiry(reservationId: string, offsetMs: number): Promise<void>;
  /** Ids of the workspace's hold rows, live or not (the sweep deletes them). */
  holdIds(workspaceId: string): Promise<string[]>;
  /** The database's clock. */
  databaseNow(): Promise<Date>;
  /** Sum of the workspace's ledger rows by part (call `credits.ledger()` first to fold pending charges). */
  ledgerTotals(workspaceId: string): Promise<{ credits: number; free: number; bought: number; charges: number; chargeRows: number }>;
  close(): Promise<void>;
}

export async function openBillingFixture(): Promise<BillingFixture> {
  const database = await createTestDatabase();
  const orm = await initOrm({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
  const db = sqlDbFromOrm(orm);
  const others: Orm[] = [];
  return {
    database,
    orm,
    db,
    async openInstance() {
      const other = await initOrm({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
      others.push(other);
      return other;
    },
    async createWorkspace({ freeGrant }) {
      const id = randomUUID();
      await db.all(`insert into workspace (id, name, receives_free_grant, created_at) values (?, 'billing test', ?, now())`, [id, freeGrant]);
      return id;
    },
    async moveHoldExpiry(reservationId, offsetMs) {
      const rows = await db.all(
        `update billing_reservation set expires_at = now() + ?::int * interval '1 millisecond' where id = ?::uuid returning id`,
        [offsetMs, reservationId],
      );
      if (rows.length !== 1) throw new Error(`No hold ${reservationId} to move.`);
    },
    async holdIds(workspaceId) {
      const rows = await db.all<{ id: string }>('select id from billing_reservation where workspace_id = ?::uuid order by id', [workspaceId]);
      return rows.map((row) => row.id);
    },
    async databaseNow() {
      const [row] = await db.all<{ now: string | Date }>('select now() as now');
      return new Date(row.now);
    },
    async ledgerTotals(workspaceId) {
      const [row] = await db.all<Record<string, unknown>>(
        `select coalesce(sum(credits), 0) as credits, coalesce(sum(free_credits), 0) as free,
           coalesce(sum(bought_credits), 0) as bought,
           coalesce(sum(credits) filter (where kind = 'charge'), 0) as charges,
           count(*) filter (where kind = 'charge') as charge_rows
         from billing_ledger_entry where workspace_id = ?`,
        [workspaceId],
      );
      return {
        credits: Number(row.credits),
        free: Number(row.free),
        bought: Number(row.bought),
        charges: Number(row.charges),
        chargeRows: Number(row.charge_rows),
      };
    },
    async close() {
      for (const other of others) await other.close(true);
      await orm.close(true);
      await database.drop();
    },
  };
}

/** A clock the test moves by hand. */
export function manualClock(start: string): { now: () => Date; set(iso: string): void; advance(ms: number): void } {
  let current = new Date(start);
  return {
    now: () => new Date(current),
    set: (iso) => {
      current = new Date(iso);
    },
    advance: (ms) => {
      current = new Date(current.getTime() + ms);
    },
  };
}
