import { z } from 'zod';

/**
 * A list of distinct members of `values`, 1 to all of them. A repeated member is refused as `duplicate value` before
 * the count is checked, so three members of a two-member set are named as the duplicates they are.
 */
export function distinctList<const T extends readonly [string, ...string[]]>(values: T) {
  return z
    .array(z.enum(values))
    .refine((items) => new Set(items).size === items.length, { message: 'duplicate value', abort: true })
    .min(1)
    .max(values.length);
}
