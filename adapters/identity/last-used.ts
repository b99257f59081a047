/** `lastUsedAt` is kept to the minute: writing it on every call would put a row write on the hot path. */
export const LAST_USED_RESOLUTION_MS = 60_000;
/** Past this many principals the memory of writes starts over (one extra write each), so it stays bounded. */
const LAST_USED_TRACKED = 10_000;

/**
 * `write` for a key or connection at most once per `LAST_USED_RESOLUTION_MS` in this process: the key store and the
 * connection store record use through this one throttle.
 */
export function throttledLastUsed(write: (keyId: string, now: Date) => Promise<void>): (keyId: string, now: Date) => Promise<void> {
  const written = new Map<string, number>();
  return async (keyId, now) => {
    const last = written.get(keyId);
    if (last !== undefined && now.getTime() - last < LAST_USED_RESOLUTION_MS) return;
    if (written.size >= LAST_USED_TRACKED) written.clear();
    written.set(keyId, now.getTime());
    await write(keyId, now);
  };
}
