import { randomBytes } from 'node:crypto';
import { readFile, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import type { IdentityStore } from '../adapters/identity/identity-store.ts';
import type { PersonStore } from '../adapters/people/person-store.ts';
import { SCOPES } from '../adapters/identity/scopes.ts';

export const DEMO_KEY_FILE = 'demo-key';
export const DEMO_PERSON_FILE = 'demo-person';
export const DEMO_EMAIL = 'demo@example.com';

export interface Demo {
  key: string;
  person: { email: string; password: string };
}

async function readPrivate(file: string): Promise<string | undefined> {
  return readFile(file, 'utf8').then((text) => text.trim() || undefined, () => undefined);
}

async function writePrivate(file: string, text: string): Promise<void> {
  await writeFile(file, text, { mode: 0o600 });
  await chmod(file, 0o600);
}

/**
 * On first start, a demo person (`demo@example.com`, with a generated password) owning a demo workspace with a
 * key holding every scope. The key goes to `<dataDir>/demo-key`, the person's credentials to
 * `<dataDir>/demo-person` (both mode 600). Later starts reuse both while they still work. The demo key never
 * expires: it exists so a newcomer's first curl works, and it is revocable like any key.
 */
export async function ensureDemo(identity: IdentityStore, people: PersonStore, dataDir: string): Promise<Demo> {
  const personFile = join(dataDir, DEMO_PERSON_FILE);
  const saved = (await readPrivate(personFile))?.match(/^password: (\S+)$/m)?.[1];
  const found = await identity.getPersonByEmail(DEMO_EMAIL);
  const person = found ?? (await identity.createPerson({ email: DEMO_EMAIL, name: 'Demo person' }));
  let password = saved;
  // A new database behind an old data folder: the saved password is set again so the printed one works.
  if (!found || !password) {
    password ??= randomBytes(12).toString('base64url');
    await people.setPassword(person.id, password);
    await writePrivate(personFile, `email: ${DEMO_EMAIL}\npassword: ${password}\n`);
  }

  const keyFile = join(dataDir, DEMO_KEY_FILE);
  const existing = await readPrivate(keyFile);
  const authenticated = existing ? await identity.authenticateKey(existing) : undefined;
  if (existing && authenticated && !('failure' in authenticated)) {
    // Data folders from before people could sign in have a demo workspace without the demo person.
    await people.addMembership(person.id, authenticated.workspaceId, 'owner');
    return { key: existing, person: { email: DEMO_EMAIL, password } };
  }
  const workspace = await identity.createWorkspace({ name: 'Demo workspace', ownerPersonId: person.id });
  const created = await identity.createApiKey({ workspaceId: workspace.id, label: 'test', scopes: [...SCOPES], name: 'Demo key', expiresAt: null });
  await writePrivate(keyFile, `${created.key}\n`);
  return { key: created.key, person: { email: DEMO_EMAIL, password } };
}
