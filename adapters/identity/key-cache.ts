import type { AuthenticatedKey } from './identity-store.ts';

/** Re-read a cached key at least this often: a safety net behind invalidation, not what makes revocation work. */
const DEFAULT_TTL_MS = 60_000;
const DEFAULT_MAX_ENTRIES = 10_000;

interface Entry {
  key: AuthenticatedKey;
  expiresMs: number | null;
  cachedUntil: number;
}

/**
 * Live API keys by hash, so authenticating a known key needs no database round trip. Whoever changes a key
 * (revocation, deletion) forgets it here, in this process directly or through the database's change feed.
 *
 * A read that began before an invalidation must not put back what it read: `generation` counts invalidations,
 * and `remember` drops an answer read under an older generation.
 */
export class KeyCache {
  #entries = new Map<string, Entry>();
  #hashByKeyId = new Map<string, string>();
  #generation = 0;
  #enabled: boolean;
  readonly #ttlMs: number;
  readonly #maxEntries: number;

  constructor(options: { enabled?: boolean; ttlMs?: number; maxEntries?: number } = {}) {
    this.#enabled = options.enabled ?? true;
    this.#ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  }

  get generation(): number {
    return this.#generation;
  }

  /** The cached key, `expired` from the instant it lapses (no grace), or undefined when the database must answer. */
  lookup(hash: string, nowMs: number): AuthenticatedKey | 'expired' | undefined {
    const entry = this.#entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresMs !== null && nowMs >= entry.expiresMs) return 'expired';
    if (nowMs >= entry.cachedUntil) {
      this.#drop(hash, entry.key.keyId);
      return undefined;
    }
    return entry.key;
  }

  /** Keeps a live key read from the database, unless the cache is off or a key changed since the read began. */
  remember(hash: string, key: AuthenticatedKey, readAtGeneration: number, nowMs: number): void {
    if (!this.#enabled || readAtGeneration !== this.#generation) return;
    if (this.#entries.size >= this.#maxEntries) this.#clearEntries();
    this.#entries.set(hash, { key, expiresMs: key.expiresAt?.getTime() ?? null, cachedUntil: nowMs + this.#ttlMs });
    this.#hashByKeyId.set(key.keyId, hash);
  }

  /** A key changed (revoked, deleted, re-scoped): its next call reads the database. */
  forget(keyId: string): void {
    this.#generation++;
    const hash = this.#hashByKeyId.get(keyId);
    if (hash !== undefined) this.#drop(hash, keyId);
  }

  /** Changes may have been missed (the change feed was down): forget everything and cache nothing until enabled. */
  disable(): void {
    this.#enabled = false;
    this.#generation++;
    this.#clearEntries();
  }

  /** The change feed is listening again; what was cached before it broke is already gone. */
  enable(): void {
    this.#generation++;
    this.#clearEntries();
    this.#enabled = true;
  }

  #drop(hash: string, keyId: string): void {
    this.#entries.delete(hash);
    this.#hashByKeyId.delete(keyId);
  }

  #clearEntries(): void {
    this.#entries.clear();
    this.#hashByKeyId.clear();
  }
}
