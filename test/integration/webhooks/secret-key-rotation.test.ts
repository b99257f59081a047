import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sqlDbFromOrm, type SqlDb } from '../../../adapters/db/sql.ts';
import { createIdentityStore } from '../../../adapters/identity/identity-store.ts';
import { checkSealingKeys, createWebhookSecrets, resealSecrets, sealingKeys } from '../../../adapters/webhooks/webhook-secrets.ts';
import { useMigratedOrm } from '../../support/migrated-orm.ts';

/** Rotating SVC_WEBHOOK_KEYS (docs/webhooks.md): refused start while a stored secret's key is missing; an end state. */
const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };

describe('webhook secret key rotation', () => {
  const migrated = useMigratedOrm();
  let db: SqlDb;
  let workspaceId: string;

  beforeAll(async () => {
    db = sqlDbFromOrm(migrated.orm);
    ({ id: workspaceId } = await createIdentityStore(migrated.orm).createWorkspace({ name: 'rotation' }));
  });

  async function webhookSealedBy(keys: typeof k1[], secret: string): Promise<string> {
    const id = randomUUID();
    const now = new Date().toISOString();
    await db.all(
      `insert into "webhook" ("id", "workspace_id", "name", "url", "events", "secret_ciphertext", "created_at", "updated_at") values (?, ?, 'w', 'https://example.com/h', '[]', ?, ?::timestamptz, ?::timestamptz)`,
      [id, workspaceId, createWebhookSecrets(keys).encrypt(secret), now, now],
    );
    return id;
  }
  const ciphertextOf = async (id: string) => (await db.all<{ c: string }>(`select "secret_ciphertext" as "c" from "webhook" where "id" = ?`, [id]))[0].c;

  it('refuses to start without a key that seals a stored secret, naming it; re-encrypts in batches until none is left', async () => {
    const secrets = ['whsec_a', 'whsec_b', 'whsec_c'];
    const ids = [];
    for (const secret of secrets) ids.push(await webhookSealedBy([k1], secret));
    await expect(checkSealingKeys(db, [k2])).rejects.toThrow(/3 stored webhook secret\(s\) are encrypted under key id "k1", which SVC_WEBHOOK_KEYS does not configure/);
    await expect(checkSealingKeys(db, [k2, k1])).resolves.toBeUndefined();

    const rotated = createWebhookSecrets([k2, k1]);
    expect(await resealSecrets(db, rotated, 'k2', 2)).toEqual({ resealed: 2, remaining: 1 });
    expect(await resealSecrets(db, rotated, 'k2', 2)).toEqual({ resealed: 1, remaining: 0 });
    expect(await resealSecrets(db, rotated, 'k2', 2)).toEqual({ resealed: 0, remaining: 0 });
    expect(await sealingKeys(db)).toEqual(new Map([['k2', 3]]));

    // The old key can go: the new one alone opens every secret, unchanged.
    await expect(checkSealingKeys(db, [k2])).resolves.toBeUndefined();
    const onlyNew = createWebhookSecrets([k2]);
    for (const [i, id] of ids.entries()) expect(onlyNew.decrypt(await ciphertextOf(id))).toBe(secrets[i]);
  });
});
