import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { EmbeddedDatabase } from '../db/embedded-database.ts';
import type { Client } from 'pg';
import { logger } from '../logging/logger.ts';
import { ACK_TIMEOUT_MS, createAckTracker, keyIdOfChange, type ChangedKey } from './key-change-acks.ts';
import type { KeyCache } from './key-cache.ts';
import { announce, InstanceSettingsRefusal, liveInstances, type InstanceSettings } from './instance-presence.ts';

/** The channel the api_key trigger notifies (migration Migration20261125002000_key_change_ids) with `<key id>:<txid>`. */
export const KEY_CHANGES_CHANNEL = 'api_key_changed';
/** Where each instance's listener reports `<instance id> <change id>` once it has applied a change. */
export const KEY_ACKS_CHANNEL = 'api_key_applied';
const RECONNECT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 5_000;

export interface KeyChangeFeed {
  /** This instance, as its acknowledgements name it. */
  readonly instanceId: string;
  /**
   * Runs `write`, which changes `api_key` rows and returns each changed key's id and transaction id
   * (`returning "id", txid_current()::text as "txid"`), and answers once every instance listening when it began has
   * dropped those keys (acknowledged the changes), or after `timeoutMs` (the laggards are logged).
   */
  propagate<T extends ChangedKey>(write: () => Promise<T[]>, timeoutMs?: number): Promise<T[]>;
  close(): Promise<void>;
}

export interface KeyChangeHandlers {
  /** A key changed; the change is acknowledged once this settles (an integration test delays it to hold an instance back). */
  changed(keyId: string): void | Promise<void>;
  /** The feed stopped listening: changes from now on may be missed. */
  lost(): void;
  /** The feed listens (again). */
  listening(): void;
}

export interface FeedOptions {
  /** Defaults to a random id; tests name their instances. */
  instanceId?: string;
  /** What every instance on the database must share; an instance with other settings is refused at start. */
  settings?: InstanceSettings;
  /** How long `propagate` waits for acknowledgements by default (2 s); a test holding an instance back waits longer. */
  ackTimeoutMs?: number;
}

/** Key caches that follow the feed: forget changed keys, and cache nothing while the feed is down. */
export function keyCachesFollowing(...caches: ReadonlyArray<Pick<KeyCache<never>, 'forget' | 'disable' | 'enable'>>): KeyChangeHandlers {
  return {
    changed: (keyId) => caches.forEach((cache) => cache.forget(keyId)),
    lost: () => caches.forEach((cache) => cache.disable()),
    listening: () => caches.forEach((cache) => cache.enable()),
  };
}

function newInstanceId(): string {
  return randomBytes(8).toString('hex');
}

/**
 * Key changes from PostgreSQL: one dedicated connection LISTENs to the api_key trigger's notifications, which the
 * server sends every listening instance at commit, applies each and acknowledges it on `api_key_applied`. The same
 * connection is the instance's presence (its application_name, `instance-presence.ts`), so a key change knows which
 * instances to wait for. While it is not listening (not yet connected, dropped) the handlers hear `lost` and the cache
 * stays off; it reconnects by itself.
 */
export async function listenToPostgres(databaseUrl: string, handlers: KeyChangeHandlers, options: FeedOptions = {}): Promise<KeyChangeFeed> {
  const pg = createRequire(import.meta.url)('pg') as typeof import('pg');
  const instanceId = options.instanceId ?? newInstanceId();
  const acks = createAckTracker();
  let client: Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const apply = async (connection: Client, changeId: string) => {
    await handlers.changed(keyIdOfChange(changeId));
    await connection.query('select pg_notify($1, $2)', [KEY_ACKS_CHANNEL, `${instanceId} ${changeId}`]).catch(() => undefined);
  };

  const connect = async (first: boolean): Promise<void> => {
    const candidate = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    let failed = false;
    const fail = (error?: unknown) => {
      if (failed) return;
      failed = true;
      if (error) logger.warn({ err: error }, 'key change feed lost: authenticating every call against the database until it is back');
      handlers.lost();
      void candidate.end().catch(() => undefined);
      if (client === candidate) client = undefined;
      if (!closed) retry = setTimeout(() => void connect(false), RECONNECT_MS);
    };
    candidate.on('error', fail);
    candidate.on('end', () => fail());
    candidate.on('notification', (message) => {
      if (!message.payload) return;
      if (message.channel === KEY_CHANGES_CHANNEL) void apply(candidate, message.payload);
      if (message.channel === KEY_ACKS_CHANNEL) {
        const space = message.payload.indexOf(' ');
        acks.acknowledged(message.payload.slice(0, space), message.payload.slice(space + 1));
      }
    });
    try {
      await candidate.connect();
      await candidate.query(`listen ${KEY_CHANGES_CHANNEL}`);
      await candidate.query(`listen ${KEY_ACKS_CHANNEL}`);
      // Named only once listening: an instance that key changes wait for is one that will hear them.
      await announce(candidate, instanceId, options.settings);
    } catch (error) {
      // Other settings than a live instance's: refuse to start rather than serve beside it (a reconnect only logs).
      if (first && error instanceof InstanceSettingsRefusal) {
        closed = true;
        await candidate.end().catch(() => undefined);
        throw error;
      }
      if (error instanceof InstanceSettingsRefusal) logger.error({ err: error }, 'instance settings differ from a live instance');
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

  await connect(true);
  return {
    instanceId,
    async propagate(write, timeoutMs = options.ackTimeoutMs ?? ACK_TIMEOUT_MS) {
      // Without its own listener this instance cannot hear acknowledgements: it answers once the write committed.
      const listener = client;
      if (!listener) return write();
      const instances = await liveInstances(listener).catch(() => []);
      return (await acks.awaitApplied(instances, write, timeoutMs)).changed;
    },
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
 * process's own PGlite listener whichever code path changed the key, and this process is the only instance to wait for.
 */
export async function listenToPglite(pglite: Pick<EmbeddedDatabase, 'listen'>, handlers: KeyChangeHandlers, options: FeedOptions = {}): Promise<KeyChangeFeed> {
  const instanceId = options.instanceId ?? newInstanceId();
  const acks = createAckTracker();
  const unlisten = await pglite.listen(KEY_CHANGES_CHANNEL, (changeId) => {
    void Promise.resolve(handlers.changed(keyIdOfChange(changeId))).then(() => acks.acknowledged(instanceId, changeId));
  });
  handlers.listening();
  return {
    instanceId,
    propagate: async (write, timeoutMs = options.ackTimeoutMs ?? ACK_TIMEOUT_MS) => (await acks.awaitApplied([instanceId], write, timeoutMs)).changed,
    close: async () => {
      await unlisten().catch(() => undefined);
    },
  };
}
