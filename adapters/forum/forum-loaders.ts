import DataLoader from 'dataloader';
import type { ForumComment, ForumPost, Subforum } from '../shapes/forum-shapes.ts';
import { FORUM_BATCH_LIMIT, type ForumClient, type InfoThing } from './forum-client.ts';
import { mapForumComment, postContextOf } from './forum-comment-mapper.ts';
import { stripPrefix } from './forum-wire.ts';
import { UpstreamError } from '../upstream/upstream-error.ts';

export interface ForumLoaders {
  /** Post by bare id; null when the platform does not return it. */
  post: DataLoader<string, ForumPost | null>;
  /** Comment by bare id, with its post's fields filled in; null when not returned. */
  comment: DataLoader<string, ForumComment | null>;
  /** Community by name (case-insensitive); null when not returned. */
  subforum: DataLoader<string, Subforum | null>;
}

/**
 * Per-request loaders. Posts and comments share one `/api/info?id=` loader, so everything asked for in the
 * same tick costs ceil(N/100) round trips; a comment then needs its post, which joins the next batch.
 */
export function createForumLoaders(client: ForumClient): ForumLoaders {
  const things = new DataLoader<string, InfoThing | null>(
    async (fullnames) => {
      const found = await client.getThings([...fullnames]);
      return fullnames.map((f) => found.get(f) ?? null);
    },
    { maxBatchSize: FORUM_BATCH_LIMIT },
  );

  const post = new DataLoader<string, ForumPost | null>(
    async (ids) => {
      const results = await things.loadMany(ids.map((id) => `t3_${id}`));
      return results.map((r) => (r instanceof Error ? r : r?.kind === 'post' ? r.post : null));
    },
    { maxBatchSize: FORUM_BATCH_LIMIT },
  );

  const comment = new DataLoader<string, ForumComment | null>(
    async (ids) => {
      const raw = await things.loadMany(ids.map((id) => `t1_${id}`));
      const linkIds = raw.map((r) => (r && !(r instanceof Error) && r.kind === 'comment' && r.data.link_id ? stripPrefix(r.data.link_id) : null));
      const posts = await post.loadMany(linkIds.filter((id): id is string => id !== null));
      const postById = new Map<string, ForumPost>();
      for (const p of posts) if (p && !(p instanceof Error)) postById.set(p.id, p);
      return raw.map((r, i) => {
        if (r instanceof Error) return r;
        if (!r || r.kind !== 'comment') return null;
        const owner = linkIds[i] ? postById.get(linkIds[i]!) : undefined;
        // A comment whose post the platform no longer returns cannot be described completely.
        if (!owner) return null;
        try {
          return mapForumComment(r.data, postContextOf(owner), client.siteUrl);
        } catch (cause) {
          return new UpstreamError('unavailable', 'forum', `forum sent an unreadable t1_${ids[i]}`, { cause });
        }
      });
    },
    { maxBatchSize: FORUM_BATCH_LIMIT },
  );

  // sr_name lookups are case-insensitive: `AskScience` and `askscience` are one key.
  const subforum = new DataLoader<string, Subforum | null, string>(
    async (names) => {
      const found = await client.getSubforumsByNames([...names]);
      return names.map((n) => found.get(n.toLowerCase()) ?? null);
    },
    { maxBatchSize: FORUM_BATCH_LIMIT, cacheKeyFn: (name) => name.toLowerCase() },
  );

  return { post, comment, subforum };
}
