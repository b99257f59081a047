/** Re-read a cached key at least this often: a safety net behind invalidation, not what makes revocation work. */
const DEFAULT_TTL_MS = 60_000;
const DEFAULT_MAX_ENTRIES = 10_000;

interface Entry<V> {
  key: V;
  expiresMs: number | null;
  cachedUntil: number;
}

/** Credentials remembered as lately good, oldest out first. */
const KNOWN_MAX = 100_000;

/**
 * Live credentials by hash, so authenticating a known one needs no database round trip: API keys, and the OAuth
 * access tokens of MCP connections (several tokens per connection). Each belongs to a key id (`api_key` row); whoever
 * changes that row (revocation, deletion) forgets all of them here, in this process directly or through the database's
 * change feed.
 *
 * A read that began before an invalidation must not put back what it read: `generation` counts invalidations,
 * and `remember` drops an answer read under an older generation.
 */
export class KeyCache<V extends { keyId: string }> {
  #entries = new Map<string, Entry<V>>();
  #known = new Set<string>();
  #hashesByKeyId = new Map<string, Set<string>>();
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
  lookup(hash: string, nowMs: number): V | 'expired' | undefined {
    const entry = this.#entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresMs !== null && nowMs >= entry.expiresMs) return 'expired';
    if (nowMs >= entry.cachedUntil) {
      this.#drop(hash, entry.key.keyId);
      return undefined;
    }
    return entry.key;
  }

  /**
   * Whether this credential was read live from the database by this instance lately (the last KNOWN_MAX of them),
   * however long ago its entry ended, and whether or not the cache is on: a client already working, whose lookup the
   * bad-key limits let through (adapters/identity/key-failures.ts). It grants nothing else: the lookup still decides.
   */
  known(hash: string): boolean {
    return this.#known.has(hash);
  }

  /** Keeps a live credential read from the database, unless the cache is off or a key changed since the read began. */
  remember(hash: string, key: V, expiresMs: number | null, readAtGeneration: number, nowMs: number): void {
    if (!this.#known.has(hash)) {
      if (this.#known.size >= KNOWN_MAX) this.#known.delete(this.#known.values().next().value!);
      this.#known.add(hash);
    }
    if (!this.#enabled || readAtGeneration !== this.#generation) return;
    if (this.#entries.size >= this.#maxEntries) this.#clearEntries();
    this.#entries.set(hash, { key, expiresMs, cachedUntil: nowMs + this.#ttlMs });
    const hashes = this.#hashesByKeyId.get(key.keyId) ?? new Set<string>();
    this.#hashesByKeyId.set(key.keyId, hashes.add(hash));
  }

  /** A key changed (revoked, deleted, re-scoped): its next call reads the database. */
  forget(keyId: string): void {
    this.#generation++;
    for (const hash of this.#hashesByKeyId.get(keyId) ?? []) this.#drop(hash, keyId);
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
    const hashes = this.#hashesByKeyId.get(keyId);
    hashes?.delete(hash);
    if (hashes?.size === 0) this.#hashesByKeyId.delete(keyId);
  }

  #clearEntries(): void {
    this.#entries.clear();
    this.#hashesByKeyId.clear();
  }
}
