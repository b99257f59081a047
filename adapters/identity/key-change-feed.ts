import { createRequire } from 'node:module';
import type { PGlite } from '@electric-sql/pglite';
import type { Client } from 'pg';
import { logger } from '../logging/logger.ts';
import type { KeyCache } from './key-cache.ts';

/** The channel the api_key trigger notifies (migration Migration20261124500000_api_key_changes) with the key id. */
export const KEY_CHANGES_CHANNEL = 'api_key_changed';
const RECONNECT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 5_000;

export interface KeyChangeFeed {
  /** Resolves when this feed has seen the change of `keyId` (so every listening instance was sent it), or after `timeoutMs`. */
  seen(keyId: string, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface KeyChangeHandlers {
  changed(keyId: string): void;
  /** The feed stopped listening: changes from now on may be missed. */
  lost(): void;
  /** The feed listens (again). */
  listening(): void;
}

/** A key cache that follows the feed: forgets changed keys, and caches nothing while the feed is down. */
export function keyCacheFollowing(cache: KeyCache): KeyChangeHandlers {
  return { changed: (keyId) => cache.forget(keyId), lost: () => cache.disable(), listening: () => cache.enable() };
}

function waiters() {
  const pending = new Map<string, Set<() => void>>();
  return {
    seen(keyId: string, timeoutMs: number): Promise<void> {
      return new Promise((resolve) => {
        const set = pending.get(keyId) ?? new Set();
        pending.set(keyId, set);
        const done = () => {
          clearTimeout(timer);
          set.delete(done);
          if (!set.size) pending.delete(keyId);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        timer.unref();
        set.add(done);
      });
    },
    notify(keyId: string): void {
      for (const done of [...(pending.get(keyId) ?? [])]) done();
    },
  };
}

/**
 * Key changes from PostgreSQL: one dedicated connection LISTENs to the api_key trigger's notifications, which the
 * server sends every listening instance at commit. While it is not listening (not yet connected, dropped) the
 * handlers hear `lost` and the cache stays off; it reconnects by itself.
 */
export async function listenToPostgres(databaseUrl: string, handlers: KeyChangeHandlers): Promise<KeyChangeFeed> {
  const pg = createRequire(import.meta.url)('pg') as typeof import('pg');
  const seen = waiters();
  let client: Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const candidate = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    let failed = false;
    const fail = (error?: unknown) => {
      if (failed) return;
      failed = true;
      if (error) logger.warn({ err: error }, 'key change feed lost: authenticating every call against the database until it is back');
      handlers.lost();
      void candidate.end().catch(() => undefined);
      if (client === candidate) client = undefined;
      if (!closed) retry = setTimeout(() => void connect(), RECONNECT_MS);
    };
    candidate.on('error', fail);
    candidate.on('end', () => fail());
    candidate.on('notification', (message) => {
      if (message.channel !== KEY_CHANGES_CHANNEL || !message.payload) return;
      handlers.changed(message.payload);
      seen.notify(message.payload);
    });
    try {
      await candidate.connect();
      await candidate.query(`listen ${KEY_CHANGES_CHANNEL}`);
    } catch (error) {
      fail(error);
      return;
    }
    if (closed) {
      await candidate.end().catch(() => undefined);
      return;
    }
    client = candidate;
    handlers.listening();
  };

  await connect();
  return {
    seen: (keyId, timeoutMs) => (client ? seen.seen(keyId, timeoutMs) : Promise.resolve()),
    async close() {
      closed = true;
      clearTimeout(retry);
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}

/**
 * Key changes on the embedded database: one process owns it, so the trigger's notifications reach this
 * process's own PGlite listener whichever code path changed the key.
 */
export async function listenToPglite(pglite: PGlite, handlers: KeyChangeHandlers): Promise<KeyChangeFeed> {
  const seen = waiters();
  const unlisten = await pglite.listen(KEY_CHANGES_CHANNEL, (keyId) => {
    handlers.changed(keyId);
    seen.notify(keyId);
  });
  handlers.listening();
  return {
    seen: (keyId, timeoutMs) => seen.seen(keyId, timeoutMs),
    close: async () => {
      await unlisten().catch(() => undefined);
    },
  };
}
