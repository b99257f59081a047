import DataLoader from 'dataloader';
import type { EditHistory, MicroblogPost, MicroblogProfile } from '../shapes/microblog-shapes.ts';
import type { MicroblogClient, PostRead } from './microblog-client.ts';
import type { Conversation } from './microblog-conversation.ts';
import { editVersionIds, mapEditHistory } from './microblog-edit-history-mapper.ts';
import { tweetUnavailableError } from './microblog-errors.ts';
import type { ReplyRanking } from './microblog-operations.ts';
import { unavailableTweetReason } from './microblog-post-mapper.ts';

/** The platform's bulk operations take at most 100 ids per call. */
export const MICROBLOG_BATCH_SIZE = 100;

export interface ConversationRequest {
  postId: string;
  cursor?: string;
  /** The platform's reply ranking; `Relevance` when not given, as the platform's own default. */
  rankingMode?: ReplyRanking;
}

export interface MicroblogLoaders {
  /** Posts by id; null for ids the platform cannot return. */
  postsById: DataLoader<string, MicroblogPost | null>;
  /** Accounts by id; null for suspended, deactivated, deleted or unknown accounts. */
  usersById: DataLoader<string, MicroblogProfile | null>;
  /** One post; one the platform cannot return is its typed error (not found, or not public and why). */
  post(id: string): Promise<MicroblogPost>;
  /** A post's edit history: the post's own read (shared with `post` and `postsById`), then its other versions. */
  editHistory(id: string): Promise<EditHistory>;
  /** A conversation page: a post's thread and its replies in the same ranking read it once. */
  conversation(request: ConversationRequest): Promise<Conversation>;
}

/** A batch whose read failed fails whole, so DataLoader forgets it and a later load in the request tries again. */
function valuesOf<T>(loaded: Array<T | Error>): T[] {
  return loaded.map((value) => {
    if (value instanceof Error) throw value;
    return value;
  });
}

/**
 * Per-request loaders: every post or account asked for in one tick (a bulk call, or GraphQL fields resolved side
 * by side) is fetched in as few upstream round trips as the 100-id limit allows, and a post or conversation page
 * read once is not read again within the request (a post's edit history reuses the post's own read). Create one
 * set per request so nothing is cached across callers.
 */
export function createMicroblogLoaders(client: Pick<MicroblogClient, 'getPostsByIds' | 'getUsersByIds' | 'getConversation'>): MicroblogLoaders {
  const reads = new DataLoader<string, PostRead>(
    async (ids) => {
      const found = await client.getPostsByIds([...ids]);
      return ids.map((id) => found.get(id) ?? { result: null, post: null });
    },
    { maxBatchSize: MICROBLOG_BATCH_SIZE },
  );
  const postsById = new DataLoader<string, MicroblogPost | null>(async (ids) => valuesOf(await reads.loadMany(ids)).map((read) => read.post), {
    maxBatchSize: MICROBLOG_BATCH_SIZE,
  });
  const conversations = new DataLoader<ConversationRequest, Conversation, string>(
    // One page per load (batch: false): TweetDetail reads one post.
    (requests) => Promise.all(requests.map(({ postId, cursor, rankingMode }) => client.getConversation(postId, { cursor, rankingMode }))),
    { batch: false, cacheKeyFn: ({ postId, cursor, rankingMode }) => JSON.stringify([postId, cursor ?? null, rankingMode ?? 'Relevance']) },
  );


  return {
    postsById,
    usersById: new DataLoader(
      async (ids) => {
        const found = await client.getUsersByIds([...ids]);
        return ids.map((id) => found.get(id) ?? null);
      },
      { maxBatchSize: MICROBLOG_BATCH_SIZE },
    ),
    post: async (id) => {
      const { result, post } = await reads.load(id);
      if (post) return post;
      throw tweetUnavailableError(unavailableTweetReason(result) ?? 'Unavailable', id);
    },
    editHistory: async (id) => {
      const { result } = await reads.load(id);
      const reason = unavailableTweetReason(result);
      if (reason !== null) throw tweetUnavailableError(reason, id);
      const versions = valuesOf(await postsById.loadMany(editVersionIds(result)));
      return mapEditHistory(id, result, versions.filter((post): post is MicroblogPost => post !== null));
    },
    conversation: (request) => conversations.load(request),
  };
}
