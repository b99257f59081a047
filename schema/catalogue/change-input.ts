import type { z } from 'zod';

/**
 * The input of a change (PATCH): its id and at least one member to change. An empty change is a 400 rather than a
 * 200 that changes nothing: it is almost always a client that lost its body (docs/api-conventions.md).
 */
export function namingAChange<T extends z.ZodObject>(input: T): T {
  const members = Object.keys(input.shape).filter((name) => name !== 'id');
  return input.refine((args) => members.some((name) => (args as Record<string, unknown>)[name] !== undefined), {
    message: `Send at least one of ${members.map((name) => `'${name}'`).join(', ')}: a change naming none would change nothing.`,
  });
}
