import type { SimComment, SimCommentTree, SimPost } from './forum-sim-records.ts';
import { encodeComment, listing, thing } from './forum-wire-encoder.ts';

export const DEFAULT_TREE_DEPTH = 10;
export const DEFAULT_TREE_LIMIT = 200;
export const MAX_TREE_LIMIT = 500;
/** `/api/morechildren` returns at most this many things per call. */
export const MORECHILDREN_BUDGET = 100;

export interface RenderOptions {
  sort: string;
  /** Deepest level rendered, counted from the thread's root (absolute comment depth). */
  maxDepth: number;
  /** Comments rendered in total; the rest collapse into `more` stubs. */
  limit: number;
}

/** Renders a post's comment tree the way `/comments/{id}` nests it, with `more` stubs where it stops. */
export class CommentRenderer {
  private budget: number;
  private readonly tree: SimCommentTree;
  private readonly post: SimPost;
  private readonly opts: RenderOptions;

  constructor(tree: SimCommentTree, post: SimPost, opts: RenderOptions) {
    this.tree = tree;
    this.post = post;
    this.opts = opts;
    this.budget = opts.limit;
  }

  /** Nested Things under a parent fullname (the post's for the whole tree). */
  nested(parentFullname: string, depth: number): unknown[] {
    return this.renderSiblings(this.sortedChildren(parentFullname), parentFullname, depth);
  }

  /** The context view: the chain of up to `context` ancestors above a comment, then its subtree. */
  focused(comment: SimComment, context: number): unknown[] {
    this.budget -= 1;
    const replies = this.repliesOf(comment);
    let node = thing('t1', encodeComment(comment, this.post, replies));
    let current = comment;
    for (let up = 0; up < context && current.parentId.startsWith('t1_'); up++) {
      const parent = this.tree.byId.get(current.parentId.slice(3));
      if (!parent) break;
      node = thing('t1', encodeComment(parent, this.post, listing([node], null)));
      current = parent;
    }
    return [node];
  }

  /** Flat, parents-first, `replies: ""` everywhere: the shape of `/api/morechildren` things. */
  flat(ids: string[]): unknown[] {
    const out: unknown[] = [];
    const comments = ids.map((id) => this.tree.byId.get(id)).filter((c): c is SimComment => c !== undefined);
    this.flatSiblings(comments, out);
    return out;
  }

  private flatSiblings(comments: SimComment[], out: unknown[]): void {
    for (let i = 0; i < comments.length; i++) {
      if (this.budget <= 0) {
        out.push(this.moreStub(comments.slice(i), comments[i].parentId, comments[i].depth));
        return;
      }
      this.budget -= 1;
      const comment = comments[i];
      out.push(thing('t1', encodeComment(comment, this.post, '')));
      const kids = this.sortedChildren(`t1_${comment.id}`);
      if (kids.length === 0) continue;
      if (comment.depth + 1 >= this.opts.maxDepth) out.push(this.continueStub(comment));
      else this.flatSiblings(kids, out);
    }
  }

  private renderSiblings(comments: SimComment[], parentFullname: string, depth: number): unknown[] {
    const out: unknown[] = [];
    for (let i = 0; i < comments.length; i++) {
      if (this.budget <= 0) {
        out.push(this.moreStub(comments.slice(i), parentFullname, depth));
        break;
      }
      this.budget -= 1;
      out.push(thing('t1', encodeComment(comments[i], this.post, this.repliesOf(comments[i]))));
    }
    return out;
  }

  private repliesOf(comment: SimComment): unknown {
    const kids = this.sortedChildren(`t1_${comment.id}`);
    if (kids.length === 0) return '';
    if (comment.depth + 1 >= this.opts.maxDepth) return listing([this.continueStub(comment)], null);
    return listing(this.renderSiblings(kids, `t1_${comment.id}`, comment.depth + 1), null);
  }

  /** "Continue this thread": the tree was cut by depth. */
  private continueStub(comment: SimComment): unknown {
    return thing('more', { count: 0, name: 't1__', id: '_', parent_id: `t1_${comment.id}`, depth: comment.depth + 1, children: [] });
  }

  private moreStub(rest: SimComment[], parentFullname: string, depth: number): unknown {
    const count = rest.reduce((n, c) => n + this.subtreeSize(c), 0);
    return thing('more', { count, name: `t1_${rest[0].id}`, id: rest[0].id, parent_id: parentFullname, depth, children: rest.map((c) => c.id) });
  }

  private subtreeSize(comment: SimComment): number {
    let n = 1;
    for (const kid of this.tree.children.get(`t1_${comment.id}`) ?? []) n += this.subtreeSize(kid);
    return n;
  }

  private sortedChildren(parentFullname: string): SimComment[] {
    const kids = [...(this.tree.children.get(parentFullname) ?? [])];
    const bySort: Record<string, (a: SimComment, b: SimComment) => number> = {
      new: (a, b) => b.createdUtc - a.createdUtc,
      old: (a, b) => a.createdUtc - b.createdUtc,
      controversial: (a, b) => Math.abs(a.score) - Math.abs(b.score),
    };
    const compare = bySort[this.opts.sort] ?? ((a: SimComment, b: SimComment) => b.score - a.score);
    // Stickied comments stay on top whatever the sort, as on the platform.
    return kids.sort((a, b) => Number(b.stickied) - Number(a.stickied) || compare(a, b) || a.id.localeCompare(b.id));
  }
}
