import type { GraphQLResolveInfo } from 'graphql';
import { subforumNotPublicReason } from '../../adapters/forum/forum-error-classifier.ts';
import type { ForumComment, ForumPost, Subforum } from '../../adapters/shapes/forum-shapes.ts';
import { ServiceError } from '../../schema/error-catalogue.ts';
import type { RequestContext } from '../../schema/pipeline/request-context.ts';
import type { ForumLookup } from '../../schema/types/forum-resources.ts';
import { forumLoaders, throwFirstError } from './forum-context.ts';
import { parseCommentReference, parsePostReference, parseSubforumReference, type Parsed } from './forum-references.ts';

export interface LookupArgs {
  posts?: string[];
  comments?: string[];
  subforums?: string[];
}

/** Posts and comments share the platform's 100-fullname `/api/info` call, hence one bound for both. */
export const MAX_POSTS_AND_COMMENTS = 100;

export async function lookupForum(args: LookupArgs, ctx: RequestContext, info: GraphQLResolveInfo): Promise<ForumLookup> {
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
  const [foundPosts, foundComments, foundSubforums] = await Promise.all([
    loaders.post.loadMany(postIds).then(throwFirstError),
    loaders.comment.loadMany(commentIds).then(throwFirstError),
    loaders.subforum.loadMany(names).then(throwFirstError),
  ]);

  const missing: string[] = [];
  const outPosts = keep<ForumPost>(foundPosts, postIds, (id) => missing.push(`t3_${id}`));
  const outComments = keep<ForumComment>(foundComments, commentIds, (id) => missing.push(`t1_${id}`));
  const readable = foundSubforums.map((sub) => (sub && subforumNotPublicReason(sub) === undefined ? sub : null));
  const outSubforums = keep<Subforum>(readable, names, (name) => missing.push(`r/${name}`));

  ctx.meter.add(info, 'forum_post', outPosts.length);
  ctx.meter.add(info, 'forum_comment', outComments.length);
  ctx.meter.add(info, 'subforum', outSubforums.length);
  return { posts: outPosts, comments: outComments, subforums: outSubforums, missing };
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

function keep<T>(found: Array<T | null>, asked: string[], onMissing: (asked: string) => void): T[] {
  const out: T[] = [];
  found.forEach((item, i) => (item ? out.push(item) : onMissing(asked[i])));
  return out;
}
