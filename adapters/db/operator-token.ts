import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { loadGeneratedSecret } from './secret-file.ts';

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
  return loadGeneratedSecret(dataDir, { name: OPERATOR_TOKEN_FILE, label: 'operator token' }, () => randomBytes(32).toString('base64url'), (token) => token.length >= MIN_OPERATOR_TOKEN_LENGTH);
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
