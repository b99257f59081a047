import { noteFetched, type PlatformName } from '../core/provenance.ts';
import type { RequestContext } from '../core/request-context.ts';

/**
 * A platform client whose answers are noted on the call (for `meta.provenance`): every method that returns a
 * promise notes the time it resolved. One per request, so nothing is shared between calls.
 */
export function notingAnswers<T extends object>(ctx: RequestContext, platform: PlatformName, client: T): T {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.then((answer) => {
          noteFetched(ctx, platform);
          return answer;
        });
      };
    },
  });
}
