import { describe, expect, it } from 'vitest';
import { DOCUMENT_CACHE, documentCache } from '../../schema/pipeline/document-cache.ts';

const query = (i: number, length: number) => `{ a${i} }`.padEnd(length, ' ');

describe("yoga's parse cache is bounded by the bytes of query text it holds", () => {
  it('evicts the least recently used documents once their text passes textBytes, long before the entry count', () => {
    const cache = documentCache<object>();
    const length = 10_000;
    const fits = Math.floor(DOCUMENT_CACHE.textBytes / length);
    for (let i = 0; i < fits + 5; i++) cache.set(query(i, length), { i });
    expect(cache.size).toBe(fits);
    expect(cache.calculatedSize).toBeLessThanOrEqual(DOCUMENT_CACHE.textBytes);
    expect(cache.get(query(0, length))).toBeUndefined();
    expect(cache.get(query(fits + 4, length))).toEqual({ i: fits + 4 });
  });

  it('small documents are bounded by the entry count; a query longer than the whole budget is not kept', () => {
    const cache = documentCache<object>({ ...DOCUMENT_CACHE, entries: 3 });
    for (let i = 0; i < 5; i++) cache.set(`{ a${i} }`, { i });
    expect([...cache.keys()]).toEqual(['{ a4 }', '{ a3 }', '{ a2 }']);
    cache.set(query(9, DOCUMENT_CACHE.textBytes + 1), { i: 9 });
    expect(cache.has(query(9, DOCUMENT_CACHE.textBytes + 1))).toBe(false);
  });
});
