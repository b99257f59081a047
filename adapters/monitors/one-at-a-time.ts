/**
 * A queue per key in this process: work for one key starts once the work queued before it for that key has ended
 * (failed or not); different keys run side by side. A key's entry is dropped when its last work ends.
 */
export function oneAtATimePerKey(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
  const queued = new Map<string, Promise<unknown>>();
  return <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const next = (queued.get(key) ?? Promise.resolve()).catch(() => undefined).then(work);
    queued.set(key, next);
    const forget = () => {
      if (queued.get(key) === next) queued.delete(key);
    };
    next.then(forget, forget);
    return next;
  };
}
