import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * A secret generated on first start into `<dataDir>/<name>` (mode 600) and read back on every restart, for the
 * embedded default where no configuration gives one. Two processes racing to create it agree on the first.
 */
export async function loadGeneratedSecret(
  dataDir: string,
  file: { name: string; label: string },
  generate: () => string,
  usable: (text: string) => boolean,
): Promise<string> {
  const folder = resolve(dataDir);
  await mkdir(folder, { recursive: true });
  const path = join(folder, file.name);
  const existing = await readSecret(path, file.label, usable);
  if (existing !== undefined) return existing;
  const secret = generate();
  try {
    await writeFile(path, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Created by someone else between our read and write: theirs wins, so every reader agrees.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      const theirs = await readSecret(path, file.label, usable);
      if (theirs !== undefined) return theirs;
    }
    throw error;
  }
  return secret;
}

async function readSecret(path: string, label: string, usable: (text: string) => boolean): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const secret = text.trim();
  if (!usable(secret)) throw new Error(`${path} does not hold a usable ${label}; delete it to have a new one generated.`);
  // The file holds a credential: keep it private to the owner even if it was copied in with looser rights.
  await chmod(path, 0o600);
  return secret;
}
