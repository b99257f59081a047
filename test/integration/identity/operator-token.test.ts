import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadOperatorToken, OPERATOR_TOKEN_FILE, operatorTokenMatches } from '../../../adapters/db/operator-token.ts';

describe('operator token', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-token-'));
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('generates a token on first start into a mode-600 file and reuses it on restart', async () => {
    const folder = join(dataDir, 'nested', 'data');
    const first = await loadOperatorToken(folder);
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const path = join(folder, OPERATOR_TOKEN_FILE);
    expect(readFileSync(path, 'utf8').trim()).toBe(first);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await loadOperatorToken(folder)).toBe(first);
    expect(await loadOperatorToken(mkdtempSync(join(tmpdir(), 'svc-token-other-')))).not.toBe(first);
  });

  it('uses a configured token as is and writes no file', async () => {
    const configured = 'configured-operator-token-1234';
    expect(await loadOperatorToken(dataDir, configured)).toBe(configured);
    expect(() => statSync(join(dataDir, OPERATOR_TOKEN_FILE))).toThrow(/ENOENT/);
    await expect(loadOperatorToken(dataDir, 'short')).rejects.toThrow(/at least 16 characters/);
  });

  it('tightens a copied-in token file to mode 600 and refuses an unusable one', async () => {
    const path = join(dataDir, OPERATOR_TOKEN_FILE);
    writeFileSync(path, 'copied-in-operator-token-value\n');
    chmodSync(path, 0o644);
    expect(await loadOperatorToken(dataDir)).toBe('copied-in-operator-token-value');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    writeFileSync(path, '\n');
    await expect(loadOperatorToken(dataDir)).rejects.toThrow(/does not hold a usable operator token/);
  });

  it('matches only the exact token', () => {
    const token = 'the-operator-token-0123456789';
    expect(operatorTokenMatches(token, token)).toBe(true);
    expect(operatorTokenMatches(token, `${token}x`)).toBe(false);
    expect(operatorTokenMatches(token, token.slice(0, -1))).toBe(false);
    expect(operatorTokenMatches(token, '')).toBe(false);
    expect(operatorTokenMatches(token, undefined)).toBe(false);
    expect(operatorTokenMatches(token, null)).toBe(false);
  });
});
