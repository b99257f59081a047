/**
 * Items of a bulk lookup in request order, and what was asked for and not returned. `found` holds one entry per
 * key (null when the platform had none); `keep` refuses an item that came back but must not be served.
 */
export function splitFound<T>(keys: readonly string[], found: ReadonlyArray<T | null | undefined | Error>, keep: (item: T) => boolean = () => true): { items: T[]; missing: string[] } {
  const items: T[] = [];
  const missing: string[] = [];
  found.forEach((item, index) => {
    if (item instanceof Error) throw item;
    if (item && keep(item)) items.push(item);
    else missing.push(keys[index]);
  });
  return { items, missing };
}
