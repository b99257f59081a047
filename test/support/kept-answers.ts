import type { Orm } from '../../adapters/db/orm.ts';

/**
 * Idempotency answers as an earlier version kept them: two hold a secret shown once (a webhook's signing secret, an
 * operator's new key), the others must stay — a `key` field outside the operator API, an answer without a secret, a
 * refusal. What the purge migration and the housekeeping sweep delete is checked against the same rows.
 */
export const KEPT_ANSWERS = [
  ['ws-1', 'webhook', { data: { id: 'w1', secret: 'whsec_kept' }, meta: {} }],
  ['operator', 'new-key', { data: { id: 'k1', key: 'svc_live_kept' }, meta: {} }],
  ['operator', 'purchase', { data: { balance: 10 }, meta: {} }],
  ['ws-1', 'monitor', { data: { id: 'm1', key: 'a field of that name outside the operator API' }, meta: {} }],
  ['ws-1', 'webhook-now', { data: { id: 'w2' }, meta: {} }],
  ['ws-1', 'refused', { error: { code: 'conflict' } }],
] as const;

/** The keys of KEPT_ANSWERS that hold no secret, in order. */
export const ANSWERS_WITHOUT_SECRETS = ['monitor', 'purchase', 'refused', 'webhook-now'];

export async function insertKeptAnswers(orm: Orm, createdAt: Date): Promise<void> {
  for (const [scope, key, body] of KEPT_ANSWERS) {
    await orm.em
      .getConnection()
      .execute(`insert into "idempotency_key" ("scope", "key", "request_hash", "created_at", "status", "headers", "body") values (?, ?, 'h', ?, 201, '{}'::jsonb, ?::jsonb)`, [
        scope,
        key,
        createdAt.toISOString(),
        JSON.stringify(body),
      ]);
  }
}
