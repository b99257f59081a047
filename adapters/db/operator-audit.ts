import { randomUUID } from 'node:crypto';
import type { SqlDb } from './sql.ts';

export interface AuditEntry {
  id: string;
  at: string;
  /** Who: the operator token's fingerprint and where the call came from. */
  actor: string;
  /** What: `POST /operator/workspaces/:id/purchases`, with the route's parameters in `details`. */
  action: string;
  workspaceId: string | null;
  status: number;
  requestId: string;
  details: Record<string, unknown>;
}

export interface OperatorAudit {
  record(entry: Omit<AuditEntry, 'id' | 'at'>): Promise<void>;
  list(limit: number): Promise<AuditEntry[]>;
}

interface Row {
  id: string;
  at: unknown;
  actor: string;
  action: string;
  workspace_id: string | null;
  status: number;
  request_id: string;
  details: unknown;
}

export function createOperatorAudit(db: SqlDb, clock: () => Date): OperatorAudit {
  return {
    async record(entry) {
      await db.all(
        `insert into "operator_audit" ("id", "at", "actor", "action", "workspace_id", "status", "request_id", "details") values (?, ?, ?, ?, ?, ?, ?, ?::jsonb)`,
        [randomUUID(), clock().toISOString(), entry.actor, entry.action, entry.workspaceId, entry.status, entry.requestId, JSON.stringify(entry.details)],
      );
    },
    async list(limit) {
      const rows = await db.all<Row>(`select * from "operator_audit" order by "at" desc, "id" desc limit ?`, [limit]);
      return rows.map((row) => ({
        id: row.id,
        at: (row.at instanceof Date ? row.at : new Date(String(row.at))).toISOString(),
        actor: row.actor,
        action: row.action,
        workspaceId: row.workspace_id,
        status: row.status,
        requestId: row.request_id,
        details: (typeof row.details === 'string' ? JSON.parse(row.details) : row.details) as Record<string, unknown>,
      }));
    },
  };
}
