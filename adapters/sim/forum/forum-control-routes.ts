import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonBody, sendJson } from '../sim-server.ts';
import type { AddCommentInput, AddPostInput, ForumWorld } from './forum-world.ts';

/**
 * Content control over HTTP, mirroring the world's methods:
 *   POST   /__sim/forum/subforums            {name, type?, over18?, quarantine?, banned?, …}
 *   PATCH  /__sim/forum/subforums/{name}     {type?, banned?, quarantine?, …}
 *   POST   /__sim/forum/posts                {subforum, title, selftext?, url?, author?, over18?, at?}
 *   PATCH  /__sim/forum/posts/{id}           {selftext?, title?, at?} edits; {locked?, stickied?, score?, …} updates
 *   DELETE /__sim/forum/posts/{id}?as=author|moderator|reddit|automod_filtered
 *   POST   /__sim/forum/comments             {postId, parentId?, body, author?, at?}
 *   PATCH  /__sim/forum/comments/{id}        {body, at?}
 *   DELETE /__sim/forum/comments/{id}?as=author|moderator
 *   GET    /__sim/forum/landmarks
 *   POST   /__sim/forum/paging                {stallAt?, overfill?}: post search stalls past that many results;
 *                                             searches and listings send `overfill` items more than asked
 */
export async function handleForumControl(world: ForumWorld, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const [, , , collection, key] = url.pathname.split('/');
  const method = req.method ?? 'GET';
  const body = method === 'POST' || method === 'PATCH' ? (((await readJsonBody(req)) ?? {}) as Record<string, unknown>) : {};
  const as = url.searchParams.get('as') ?? 'author';
  try {
    if (collection === 'landmarks' && method === 'GET') return sendJson(res, 200, world.landmarks);
    if (collection === 'paging' && method === 'POST') {
      world.paging = {
        ...(typeof body.stallAt === 'number' ? { stallAt: body.stallAt } : {}),
        ...(typeof body.overfill === 'number' ? { overfill: body.overfill } : {}),
      };
      return sendJson(res, 200, world.paging);
    }
    if (collection === 'subforums' && method === 'POST' && !key) return sendJson(res, 201, world.addSubforum(withStrings<{ name: string }>(body, ['name'])));
    if (collection === 'subforums' && method === 'PATCH' && key) return sendJson(res, 200, world.updateSubforum(key, body));
    if (collection === 'posts' && method === 'POST' && !key) return sendJson(res, 201, world.addPost(withStrings<AddPostInput>(body, ['subforum', 'title'])));
    if (collection === 'posts' && method === 'PATCH' && key) {
      const { selftext, title, at, ...patch } = body as { selftext?: string; title?: string; at?: number };
      if (selftext !== undefined || title !== undefined) world.editPost(key, { selftext, title, at });
      return sendJson(res, 200, world.updatePost(key, patch));
    }
    if (collection === 'posts' && method === 'DELETE' && key) {
      return sendJson(res, 200, as === 'author' ? world.deletePost(key) : world.removePost(key, as));
    }
    if (collection === 'comments' && method === 'POST' && !key) return sendJson(res, 201, world.addComment(withStrings<AddCommentInput>(body, ['postId', 'body'])));
    if (collection === 'comments' && method === 'PATCH' && key) return sendJson(res, 200, world.editComment(key, withStrings<{ body: string; at?: number }>(body, ['body'])));
    if (collection === 'comments' && method === 'DELETE' && key) {
      return sendJson(res, 200, as === 'author' ? world.deleteComment(key) : world.removeComment(key));
    }
  } catch (error) {
    return sendJson(res, 400, { message: (error as Error).message });
  }
  sendJson(res, 404, { message: `no control route ${method} ${url.pathname}` });
}

/** Control input is trusted test data, but a missing required field must be a 400, not a broken record. */
function withStrings<T>(body: Record<string, unknown>, required: string[]): T {
  for (const field of required) {
    if (typeof body[field] !== 'string' || body[field] === '') throw new Error(`${field} is required`);
  }
  return body as T;
}
