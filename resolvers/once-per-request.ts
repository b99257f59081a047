/** Reads of a platform client are the methods named get…, search… or list…; nothing else is shared. */
const READ = /^(get|search|list)[A-Z]/;

/**
 * A platform client whose reads run once per request: a call with the same method and arguments as an earlier
 * one (two root fields asking for one post, two walks reaching one profile's timeline) shares that call's answer
 * instead of fetching it again. A failed read is forgotten, so a later identical call tries again.
 */
export function onceEach<T extends object>(client: T): T {
  const calls = new Map<string, Promise<unknown>>();
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property !== 'string' || typeof value !== 'function' || !READ.test(property)) return value;
      return (...args: unknown[]) => {
        const key = `${property}:${JSON.stringify(args)}`;
        let call = calls.get(key);
        if (!call) {
          call = (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          calls.set(key, call);
          call.catch(() => calls.delete(key));
        }
        return call;
      };
    },
  });
}
