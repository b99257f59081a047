import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * The operator token guards the operator-only API (the admin CLI). Given explicitly (SVC_OPERATOR_TOKEN,
 * read by the caller's config) it is used as is; otherwise one is generated on first start into
 * `<dataDir>/operator-token` (mode 600) and reused on every restart, so the CLI on the same machine finds it.
 */
export const OPERATOR_TOKEN_FILE = 'operator-token';
export const MIN_OPERATOR_TOKEN_LENGTH = 16;

export async function loadOperatorToken(dataDir: string, configured?: string): Promise<string> {
  if (configured !== undefined && configured !== '') {
    if (configured.length < MIN_OPERATOR_TOKEN_LENGTH) {
      throw new Error(`SVC_OPERATOR_TOKEN must be at least ${MIN_OPERATOR_TOKEN_LENGTH} characters long.`);
    }
    return configured;
  }
  const folder = resolve(dataDir);
  await mkdir(folder, { recursive: true });
  const path = join(folder, OPERATOR_TOKEN_FILE);
  const existing = await readToken(path);
  if (existing !== undefined) return existing;

  const token = randomBytes(32).toString('base64url');
  try {
    await writeFile(path, `${token}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Created by someone else between our read and write: theirs wins, so every reader agrees.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      const theirs = await readToken(path);
      if (theirs !== undefined) return theirs;
    }
    throw error;
  }
  return token;
}

async function readToken(path: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const token = text.trim();
  if (token.length < MIN_OPERATOR_TOKEN_LENGTH) {
    throw new Error(`${path} does not hold a usable operator token; delete it to have a new one generated.`);
  }
  // The file holds a credential: keep it private to the owner even if it was copied in with looser rights.
  await chmod(path, 0o600);
  return token;
}

/**
 * Constant-time check of a presented token. Both sides are hashed first so the comparison is over equal
 * lengths and takes the same time whatever the candidate's length.
 */
export function operatorTokenMatches(expected: string, candidate: string | null | undefined): boolean {
  if (typeof candidate !== 'string' || candidate.length === 0) return false;
  return timingSafeEqual(digest(expected), digest(candidate));
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
