import { logger } from '../logging/logger.ts';

/** A changed `api_key` row as a write reports it: the key id and the id of the transaction that changed it. */
export interface ChangedKey {
  id: string;
  txid: string;
}

/** How long a key change waits for every live instance to acknowledge it before answering anyway (and logging who did not). */
export const ACK_TIMEOUT_MS = 2_000;

/** The change id the trigger notifies and every instance acknowledges: `<key id>:<transaction id>`. */
export function changeIdOf(change: ChangedKey): string {
  return `${change.id}:${change.txid}`;
}

/** The key id of a notified change (the part before the transaction id). */
export function keyIdOfChange(changeId: string): string {
  const colon = changeId.indexOf(':');
  return colon < 0 ? changeId : changeId.slice(0, colon);
}

/** Who has applied which change, while some key change waits for the instances to drop the key. */
export interface AckTracker {
  /** An instance reports it applied a change. */
  acknowledged(instanceId: string, changeId: string): void;
  /**
   * Runs `write` and answers once each of `instances` (the live listeners, taken before the write) acknowledged every
   * change it made, or after `timeoutMs`. Acknowledgements are collected from before the write: one may arrive before
   * the write's own answer does.
   */
  awaitApplied<T extends ChangedKey>(instances: readonly string[], write: () => Promise<T[]>, timeoutMs: number): Promise<{ changed: T[]; missing: string[] }>;
}

export function createAckTracker(): AckTracker {
  const watches = new Set<(instanceId: string, changeId: string) => void>();
  return {
    acknowledged(instanceId, changeId) {
      for (const watch of watches) watch(instanceId, changeId);
    },

    async awaitApplied(instances, write, timeoutMs) {
      const acks = new Map<string, Set<string>>();
      let check = () => {};
      const watch = (instanceId: string, changeId: string) => {
        const by = acks.get(changeId) ?? new Set<string>();
        acks.set(changeId, by);
        by.add(instanceId);
        check();
      };
      watches.add(watch);
      try {
        const changed = await write();
        const changeIds = changed.map(changeIdOf);
        const missing = () => instances.filter((instance) => changeIds.some((id) => !acks.get(id)?.has(instance)));
        if (missing().length === 0) return { changed, missing: [] };
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, timeoutMs);
          timer.unref();
          check = () => {
            if (missing().length > 0) return;
            clearTimeout(timer);
            resolve();
          };
        });
        const late = missing();
        if (late.length > 0) {
          logger.warn({ instances: late, changes: changeIds }, 'key change not acknowledged in time by every instance: answering anyway; they drop the key when their listener catches up');
        }
        return { changed, missing: late };
      } finally {
        watches.delete(watch);
      }
    },
  };
}
