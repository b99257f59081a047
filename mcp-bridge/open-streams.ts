import type { Principal } from '../core/request-context.ts';

/** How often streams are checked against their credential's expiry. */
const EXPIRY_SWEEP_MS = 1_000;

/** One open stream's place: `signal` aborts when the stream must end; `release` gives the place back once it has. */
export interface StreamSlot {
  readonly signal: AbortSignal;
  release(): void;
}

export type StreamAdmission = StreamSlot | { refused: 'key' | 'workspace' | 'person' | 'instance' | 'free_tier'; limit: number };

/**
 * The `subscriptions/listen` streams open on this instance, by key, by workspace, by person, of free-tier workspaces
 * and in all: bounded (the person from the principal, known with the credential, so no read per stream), and ended when their
 * credential is no longer good. A change to a key (revoked, expiry or scopes changed, deleted, one of its connection's
 * tokens revoked) ends every stream of that key, its client opens it again and is authenticated afresh; a stream also
 * ends when its key or access token expires, by the injected clock.
 */
export interface OpenStreams {
  /** `freeTier`: the workspace has bought nothing (its streams share a pool). */
  open(principal: Principal, freeTier: boolean): StreamAdmission;
  /** The key change feed heard that this key changed. */
  keyChanged(keyId: string): void;
  /** Changes may have been missed (the feed was lost, or is back after being lost): every stream ends. */
  endAll(): void;
  /** Ends the streams whose credential has expired; runs every second on its own. */
  sweep(): void;
  readonly size: number;
  close(): void;
}

interface Entry {
  keyId: string;
  workspaceId: string;
  personId: string | undefined;
  freeTier: boolean;
  expiresAt: Date | null;
  controller: AbortController;
}

export function createOpenStreams(options: { now: () => Date; maxPerKey: number; maxPerWorkspace: number; maxPerPerson: number; maxPerInstance: number; maxFreeTier: number }): OpenStreams {
  const entries = new Set<Entry>();
  const perKey = new Map<string, number>();
  const perWorkspace = new Map<string, number>();
  const perPerson = new Map<string, number>();
  let freeTierOpen = 0;
  const count = (map: Map<string, number>, id: string, by: number) => {
    const next = (map.get(id) ?? 0) + by;
    if (next === 0) map.delete(id);
    else map.set(id, next);
  };
  const remove = (entry: Entry) => {
    if (!entries.delete(entry)) return;
    count(perKey, entry.keyId, -1);
    count(perWorkspace, entry.workspaceId, -1);
    if (entry.personId !== undefined) count(perPerson, entry.personId, -1);
    if (entry.freeTier) freeTierOpen -= 1;
  };
  // The place is given back at once: the stream's own teardown follows the abort.
  const end = (entry: Entry) => {
    remove(entry);
    entry.controller.abort();
  };
  const timer = setInterval(() => sweep(), EXPIRY_SWEEP_MS).unref();
  const sweep = () => {
    const nowMs = options.now().getTime();
    for (const entry of entries) if (entry.expiresAt !== null && entry.expiresAt.getTime() <= nowMs) end(entry);
  };
  return {
    open(principal, freeTier) {
      if ((perKey.get(principal.keyId) ?? 0) >= options.maxPerKey) return { refused: 'key', limit: options.maxPerKey };
      if ((perWorkspace.get(principal.workspaceId) ?? 0) >= options.maxPerWorkspace) return { refused: 'workspace', limit: options.maxPerWorkspace };
      const { personId } = principal;
      if (personId !== undefined && (perPerson.get(personId) ?? 0) >= options.maxPerPerson) return { refused: 'person', limit: options.maxPerPerson };
      if (freeTier && freeTierOpen >= options.maxFreeTier) return { refused: 'free_tier', limit: options.maxFreeTier };
      if (entries.size >= options.maxPerInstance) return { refused: 'instance', limit: options.maxPerInstance };
      const entry: Entry = { keyId: principal.keyId, workspaceId: principal.workspaceId, personId, freeTier, expiresAt: principal.expiresAt, controller: new AbortController() };
      entries.add(entry);
      count(perKey, entry.keyId, 1);
      count(perWorkspace, entry.workspaceId, 1);
      if (personId !== undefined) count(perPerson, personId, 1);
      if (freeTier) freeTierOpen += 1;
      return { signal: entry.controller.signal, release: () => remove(entry) };
    },
    keyChanged(keyId) {
      if (!perKey.has(keyId)) return;
      for (const entry of entries) if (entry.keyId === keyId) end(entry);
    },
    endAll() {
      for (const entry of entries) end(entry);
    },
    sweep,
    get size() {
      return entries.size;
    },
    close() {
      clearInterval(timer);
    },
  };
}
