import { z } from 'zod';

export const TruncationShape = z
  .object({
    reason: z
      .enum(['platform_cap', 'platform_stalled'])
      .describe('`platform_cap`: the platform ended the list before the count it reports itself; `platform_stalled`: it answered a page with the cursor it was asked with, so the walk cannot advance.'),
    message: z.string().describe('What happened, in words.'),
    seen: z.int().min(0).nullable().describe('Items the walk returned in all, where counted.'),
    expected: z.int().min(0).nullable().describe("The platform's own count of the list (a profile's followers, a List's members), where it has one."),
  })
  .meta({ id: 'PageTruncation' })
  .describe('Why a walk ended before the end of what the platform holds: `nextCursor` is null on this page and asking again will not give more.');

export type Truncation = z.infer<typeof TruncationShape>;

/** The platform sent back the cursor it was given: walking on would only repeat the same page. */
export function stalled(seen: number | null = null): Truncation {
  return { reason: 'platform_stalled', message: 'The platform answered this page with the cursor it was asked with: the next page would repeat it, so the list cannot be walked further.', seen, expected: null };
}

/** The platform's search goes no deeper than `depth` results, and this walk reached that depth. */
export function depthCapped(seen: number, depth: number): Truncation {
  return { reason: 'platform_cap', message: `The platform's search stops after ${depth} results; it may hold more matches. Narrow the query (time window, community, author) to reach them.`, seen, expected: null };
}

/** The platform ended the list before its own count of it. */
export function capped(seen: number, expected: number): Truncation {
  return { reason: 'platform_cap', message: `The platform ended the list after ${seen} of the ${expected} it counts.`, seen, expected };
}
