import { describe, expect, it } from 'vitest';
import {
  DISPLAY_PREFIX_LENGTH,
  displayPrefix,
  generateKeySecret,
  hashesEqual,
  hashKeySecret,
  parseKeySecret,
} from '../../../adapters/identity/key-material.ts';

describe('API key material', () => {
  it('generates live and test keys in the strict format', () => {
    const live = generateKeySecret('live');
    const test = generateKeySecret('test');
    expect(live.secret).toMatch(/^svc_live_[0-9A-Za-z]{33}$/);
    expect(test.secret).toMatch(/^svc_test_[0-9A-Za-z]{33}$/);
    expect(parseKeySecret(live.secret)).toEqual({ label: 'live' });
    expect(parseKeySecret(test.secret)).toEqual({ label: 'test' });
  });

  it('carries at least 128 bits of randomness: no repeats and every base62 digit in use', () => {
    const bodies = Array.from({ length: 2_000 }, () => generateKeySecret('live').secret.slice('svc_live_'.length));
    expect(new Set(bodies).size).toBe(bodies.length);
    // 33 base62 digits hold 196 bits; the generator draws 192 random bits, so the body has a fixed length.
    expect(new Set(bodies.map((body) => body.length))).toEqual(new Set([33]));
    const digitsSeen = new Set(bodies.join('').slice(0, 50_000));
    expect(digitsSeen.size).toBe(62);
    expect(Math.log2(62) * 33).toBeGreaterThanOrEqual(192);
  });

  it('stores only the SHA-256 hex of the whole secret and a short display prefix', () => {
    const key = generateKeySecret('live');
    expect(key.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(key.hash).toBe(hashKeySecret(key.secret));
    expect(key.hash).not.toContain(key.secret.slice(9));
    expect(key.prefix).toBe(key.secret.slice(0, DISPLAY_PREFIX_LENGTH));
    expect(displayPrefix('svc_test_abcdefghijklmnop')).toBe('svc_test_abcdefghijk');
    // Known vector: sha256("abc").
    expect(hashKeySecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('rejects malformed secrets before any lookup', () => {
    const good = generateKeySecret('live').secret;
    for (const bad of [
      '',
      'svc_live_',
      good.slice(0, -1),
      `${good}x`,
      good.replace('svc_live_', 'svc_prod_'),
      good.replace('svc_live_', 'SVC_LIVE_'),
      `${good.slice(0, -1)}-`,
      ` ${good}`,
      `${good}\n`,
      `Bearer ${good}`,
    ]) {
      expect(parseKeySecret(bad), JSON.stringify(bad)).toBeNull();
    }
  });

  it('compares hashes in constant time and only equal digests match', () => {
    const a = hashKeySecret('one');
    const b = hashKeySecret('two');
    expect(hashesEqual(a, a)).toBe(true);
    expect(hashesEqual(a, b)).toBe(false);
    expect(hashesEqual(a, a.slice(0, 62))).toBe(false);
    expect(hashesEqual('', '')).toBe(false);
  });
});
