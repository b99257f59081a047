import { LRUCache } from 'lru-cache';

/**
 * Bounds on yoga's parse cache (documents, and the errors of documents that failed to parse or were refused), per
 * cache. Yoga's default holds 1,024 entries for an hour whatever their size; a document within every limit can retain
 * about 1.2 MB (mostly tokens and locations), so 1,024 distinct ones grew the process by over a gigabyte. Entries are
 * sized by the query's length: a parsed document retains up to about 180 bytes per character of query (measured: 123
 * for a list of 5,000 numbers, 182 for 5,000 empty lists), so `textBytes` bounds each cache near 48 MB at worst and
 * still holds a hundred ordinary documents of a few kilobytes (GraphiQL's introspection query is 2.5 KB).
 */
export const DOCUMENT_CACHE = {
  textBytes: 256 * 1024,
  entries: 1024,
  ttlMs: 60 * 60 * 1000,
} as const;

/** One parse cache keyed by query text, evicting the least recently used entries past DOCUMENT_CACHE's bounds. */
export function documentCache<T extends object>(bounds: { textBytes: number; entries: number; ttlMs: number } = DOCUMENT_CACHE): LRUCache<string, T> {
  return new LRUCache<string, T>({
    max: bounds.entries,
    maxSize: bounds.textBytes,
    // lru-cache refuses a size below 1; a query longer than maxSize is simply not kept.
    sizeCalculation: (_value, query) => Math.max(1, query.length),
    ttl: bounds.ttlMs,
  });
}
