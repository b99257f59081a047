import { readFile, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import type { IdentityStore } from '../adapters/identity/identity-store.ts';
import { SCOPES } from '../adapters/identity/scopes.ts';

export const DEMO_KEY_FILE = 'demo-key';

/**
 * On first start, a demo workspace with a key holding every scope, written to `<dataDir>/demo-key` (mode
 * 600). Later starts reuse the key while it still authenticates. The demo key never expires: it exists so a
 * newcomer's first curl works, and it is revocable like any key.
 */
export async function ensureDemoKey(identity: IdentityStore, dataDir: string): Promise<string> {
  const file = join(dataDir, DEMO_KEY_FILE);
  const existing = await readFile(file, 'utf8').then((text) => text.trim(), () => undefined);
  if (existing) {
    const result = await identity.authenticateKey(existing);
    if (!('failure' in result)) return existing;
  }
  const person = await identity.createPerson({ email: `demo+${Date.now()}@example.invalid`, name: 'Demo user' });
  const workspace = await identity.createWorkspace({ name: 'Demo workspace', ownerPersonId: person.id });
  const created = await identity.createApiKey({ workspaceId: workspace.id, label: 'test', scopes: [...SCOPES], name: 'Demo key', expiresAt: null });
  await writeFile(file, `${created.key}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return created.key;
}
