import DataLoader from 'dataloader';
import type { MicroblogPost, MicroblogProfile } from '../shapes/microblog-shapes.ts';
import type { MicroblogClient } from './microblog-client.ts';

/** The platform's bulk operations take at most 100 ids per call. */
export const MICROBLOG_BATCH_SIZE = 100;

export interface MicroblogLoaders {
  /** Posts by id; null for ids the platform cannot return. */
  postsById: DataLoader<string, MicroblogPost | null>;
  /** Accounts by id; null for suspended, deactivated, deleted or unknown accounts. */
  usersById: DataLoader<string, MicroblogProfile | null>;
}

/**
 * Per-request loaders: every post or account asked for in one tick (a bulk call, or GraphQL fields resolved side
 * by side) is fetched in as few upstream round trips as the 100-id limit allows. Create one set per request so
 * nothing is cached across callers.
 */
export function createMicroblogLoaders(client: Pick<MicroblogClient, 'getPostsByIds' | 'getUsersByIds'>): MicroblogLoaders {
  return {
    postsById: new DataLoader(
      async (ids) => {
        const found = await client.getPostsByIds([...ids]);
        return ids.map((id) => found.get(id) ?? null);
      },
      { maxBatchSize: MICROBLOG_BATCH_SIZE },
    ),
    usersById: new DataLoader(
      async (ids) => {
        const found = await client.getUsersByIds([...ids]);
        return ids.map((id) => found.get(id) ?? null);
      },
      { maxBatchSize: MICROBLOG_BATCH_SIZE },
    ),
  };
}
