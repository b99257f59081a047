import { subforumNotPublicReason } from '../../adapters/forum/forum-error-classifier.ts';
import type { ForumComment, ForumPost, Subforum } from '../../adapters/shapes/forum-shapes.ts';
import { ServiceError } from '../../core/error-catalogue.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { splitFound } from '../bulk-lookup.ts';
import { forumLoaders } from './forum-context.ts';
import { parseCommentReference, parsePostReference, parseSubforumReference, type Parsed } from './forum-references.ts';

export interface LookupArgs {
  posts?: string[];
  comments?: string[];
  subforums?: string[];
}

/** Posts and comments share the platform's 100-fullname `/api/info` call, hence one bound for both. */
export const MAX_POSTS_AND_COMMENTS = 100;

export interface ForumLookup {
  posts: ForumPost[];
  comments: ForumComment[];
  subforums: Subforum[];
  missing: string[];
}

export async function lookupForum(args: LookupArgs, ctx: RequestContext): Promise<ForumLookup> {
  const posts = args.posts ?? [];
  const comments = args.comments ?? [];
  const subforums = args.subforums ?? [];
  if (posts.length + comments.length > MAX_POSTS_AND_COMMENTS) {
    throw new ServiceError('invalid_request', {
      message: `posts and comments take at most ${MAX_POSTS_AND_COMMENTS} entries together.`,
      details: { field: 'posts', limit: MAX_POSTS_AND_COMMENTS },
    });
  }
  if (posts.length + comments.length + subforums.length === 0) {
    throw new ServiceError('invalid_request', { message: 'Give at least one entry in posts, comments or subforums.', details: { field: 'posts' } });
  }
  const postIds = unique(posts.map((entry, i) => accept(parsePostReference(entry), i)));
  const commentIds = unique(comments.map((entry, i) => accept(parseCommentReference(entry), i)));
  const names = unique(subforums.map((entry, i) => accept(parseSubforumReference(entry), i)), (name) => name.toLowerCase());

  const loaders = forumLoaders(ctx);
  // Issued in the same tick: posts and comments go to the platform in one batch.
  const [foundPosts, foundComments, foundSubforums] = await Promise.all([loaders.post.loadMany(postIds), loaders.comment.loadMany(commentIds), loaders.subforum.loadMany(names)]);
  const outPosts = splitFound(postIds, foundPosts);
  const outComments = splitFound(commentIds, foundComments);
  const outSubforums = splitFound(names, foundSubforums, (sub: Subforum) => subforumNotPublicReason(sub) === undefined);
  return {
    posts: outPosts.items,
    comments: outComments.items,
    subforums: outSubforums.items,
    missing: [...outPosts.missing.map((id) => `t3_${id}`), ...outComments.missing.map((id) => `t1_${id}`), ...outSubforums.missing.map((name) => `r/${name}`)],
  };
}

/** A share link is refused with its own code; any other unreadable entry is a validation error. Both name it. */
function accept(parsed: Parsed<string>, index: number): string {
  if (parsed.ok) return parsed.value;
  const { entry, field, kind } = parsed.problem;
  if (kind === 'share_link') {
    throw new ServiceError('unsupported_link', {
      message: `${field}[${index}] is a share link (/s/…), which carries no id; open it in a browser and send the post's own URL.`,
      details: { field, index, entry },
    });
  }
  throw new ServiceError('invalid_request', { message: `${field}[${index}] is not a forum ${field.replace(/s$/, '')} reference.`, details: { field, index, entry } });
}

function unique(values: string[], key: (value: string) => string = (v) => v): string[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const k = key(value);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
