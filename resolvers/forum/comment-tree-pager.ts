import type { ForumClient, CommentSort } from '../../adapters/forum/forum-client.ts';
import type { TreeEntry } from '../../adapters/forum/comment-tree-mapper.ts';
import { postContextOf, type OwningPostContext } from '../../adapters/forum/forum-comment-mapper.ts';
import type { ForumComment } from '../../adapters/shapes/forum-shapes.ts';
import { UpstreamError } from '../../adapters/upstream/upstream-error.ts';

/**
 * Pages through a post's whole comment tree, expanding the platform's `more` stubs as pages advance.
 *
 * Order: every comment comes after its parent (parents first), and siblings keep the platform's order for
 * the chosen sort; a client rebuilds the tree from `parentId` alone. State between pages is the queue of
 * sibling runs still to load, each `{p: parent fullname, d: depth, c: ids}`; when the ids would make the
 * cursor too long, a run is kept as `{p, d, f: first id}` and its ids are read again from the platform.
 */
export interface PendingRun {
  p: string;
  d: number;
  c?: string[];
  f?: string;
}

export interface CommentPagerState {
  q: PendingRun[];
}

export interface CommentPageParams {
  sort: CommentSort;
  /** Deepest comment level returned: 1 = top-level only. */
  depth: number;
  /** Comments on this page, at most. */
  limit: number;
  /** Serialised-queue budget in characters; tests lower it to exercise re-read markers. */
  stateBudget?: number;
}

export interface CommentPage {
  comments: ForumComment[];
  next: CommentPagerState | null;
}

/** The platform's caps: `/comments` renders at most 500 comments, `/api/morechildren` takes 100 ids. */
const TREE_RENDER_CAP = 500;
const MORECHILDREN_IDS = 100;
/**
 * Serialised queue budget for the cursor. Re-read markers keep most states under it; a state still over it is
 * stored server-side by the resolver (`cursorState`), so it never makes a cursor too long.
 */
const STATE_BUDGET = 2400;

export async function firstCommentPage(client: ForumClient, postId: string, params: CommentPageParams): Promise<CommentPage> {
  const tree = await client.getCommentTree(postId, { sort: params.sort, depth: params.depth, limit: Math.min(params.limit, TREE_RENDER_CAP) });
  const collector = new PageCollector(params);
  return collector.finish(collector.take(tree.entries));
}


export async function nextCommentPage(client: ForumClient, postId: string, params: CommentPageParams, state: CommentPagerState): Promise<CommentPage> {
  const queue = [...state.q];
  const collector = new PageCollector(params);
  let post: OwningPostContext | undefined;
  while (!collector.full() && queue.length > 0) {
    const run = queue.shift()!;
    const ids = run.c ?? (await rederive(client, postId, params, run));
    const take = ids.slice(0, Math.min(MORECHILDREN_IDS, params.limit - collector.count()));
    if (take.length < ids.length) queue.unshift({ p: run.p, d: run.d, c: ids.slice(take.length) });
    if (take.length === 0) continue;
    post ??= await owningPost(client, postId);
    const entries = await client.getMoreChildren(postId, take, post, { sort: params.sort, depth: Math.max(1, params.depth - run.d) });
    // Deeper runs first, then the rest of this run: the walk stays depth-first.
    queue.unshift(...collector.take(entries));
  }
  return collector.finish(queue);
}

async function owningPost(client: ForumClient, postId: string): Promise<OwningPostContext> {
  const found = (await client.getThings([`t3_${postId}`])).get(`t3_${postId}`);
  if (!found || found.kind !== 'post') throw new UpstreamError('not_found', 'forum', `post t3_${postId} not found`);
  return postContextOf(found.post);
}

/** Reads a run's sibling ids again: the parent's children as the platform renders them, from `f` on. */
async function rederive(client: ForumClient, postId: string, params: CommentPageParams, run: PendingRun): Promise<string[]> {
  const parentComment = run.p.startsWith('t1_') ? run.p.slice(3) : undefined;
  const tree = await client.getCommentTree(postId, { sort: params.sort, comment: parentComment, limit: TREE_RENDER_CAP, depth: params.depth });
  const siblings: string[] = [];
  for (const entry of tree.entries) {
    if (entry.kind === 'comment' && entry.comment.parentId === run.p) siblings.push(entry.comment.id);
    else if (entry.kind === 'more' && entry.more.parentId === run.p && !entry.more.continueThread) siblings.push(...entry.more.children);
  }
  const from = run.f === undefined ? 0 : siblings.indexOf(run.f);
  // The thread changed under the cursor so much that the run's first comment is gone: nothing left there.
  return from < 0 ? [] : siblings.slice(from);
}

/** Collects one page from flat, parents-first entries; what does not fit goes back to the queue. */
class PageCollector {
  private readonly comments: ForumComment[] = [];
  private readonly params: CommentPageParams;

  constructor(params: CommentPageParams) {
    this.params = params;
  }

  count(): number {
    return this.comments.length;
  }

  full(): boolean {
    return this.comments.length >= this.params.limit;
  }

  /** Emits what fits; returns the runs to load later (stubs, and the overflow's top comments), in order. */
  take(entries: TreeEntry[]): PendingRun[] {
    const later: PendingRun[] = [];
    const deferred = new Set<string>();
    for (const entry of entries) {
      if (entry.kind === 'more') {
        const stub = entry.more;
        if (stub.continueThread || stub.depth >= this.params.depth || deferred.has(stub.parentId) || stub.children.length === 0) continue;
        // Overflow siblings and the stub of the same parent together are that parent's remaining children.
        const group = later.findLast((run) => run.p === stub.parentId && run.c);
        if (group) group.c!.push(...stub.children);
        else later.push({ p: stub.parentId, d: stub.depth, c: [...stub.children] });
        continue;
      }
      const { comment, depth } = entry;
      if (depth >= this.params.depth) continue;
      if (deferred.has(comment.parentId)) {
        // Its parent is deferred: loading the parent again brings this comment along.
        deferred.add(`t1_${comment.id}`);
        continue;
      }
      if (this.full()) {
        deferred.add(`t1_${comment.id}`);
        const last = later.at(-1);
        if (last && last.p === comment.parentId && last.c) last.c.push(comment.id);
        else later.push({ p: comment.parentId, d: depth, c: [comment.id] });
        continue;
      }
      this.comments.push(comment);
    }
    return later;
  }

  finish(queue: PendingRun[]): CommentPage {
    const pending = queue.filter((run) => run.f !== undefined || (run.c?.length ?? 0) > 0);
    return { comments: this.comments, next: pending.length > 0 ? { q: fitToBudget(pending, this.params.stateBudget ?? STATE_BUDGET) } : null };
  }
}

/**
 * Turns the longest id lists into re-read markers until the state fits in a cursor. A marker stands for
 * "the parent's children from `f` to the end", so later runs of the same parent fold into it.
 */
function fitToBudget(queue: PendingRun[], budget: number): PendingRun[] {
  let runs = mergeAdjacent(queue.map((run) => ({ ...run, c: run.c ? [...run.c] : undefined })));
  while (JSON.stringify(runs).length > budget) {
    let longest = -1;
    runs.forEach((run, i) => {
      if (run.c && (longest < 0 || run.c.length > runs[longest].c!.length)) longest = i;
    });
    if (longest < 0) break;
    const target = runs[longest];
    const coveredEarlier = runs.slice(0, longest).some((run) => run.p === target.p && run.f !== undefined);
    runs = runs.filter((run, i) => i < longest || run.p !== target.p || (i === longest && !coveredEarlier));
    if (!coveredEarlier) {
      target.f = target.c![0];
      delete target.c;
    }
  }
  return runs.map(({ c, ...rest }) => (c ? { ...rest, c } : rest));
}

function mergeAdjacent(runs: PendingRun[]): PendingRun[] {
  const out: PendingRun[] = [];
  for (const run of runs) {
    const last = out.at(-1);
    if (last && last.p === run.p && last.c && run.c) last.c.push(...run.c);
    else out.push(run);
  }
  return out;
}
