import type { SimComment, SimCommentTree, SimPost, SimSubforum, SubforumType } from './forum-sim-records.ts';
import { COMMENT_SLOTS, commentIdOf, commentLocation, postIdOf, postIndexOf, subforumIdOf } from './forum-ids.ts';
import { generateCommentTree, generateForumWorld, WORLD_EPOCH, type ForumLandmarks, type WorldSize } from './forum-world-generator.ts';

/** Built trees kept in memory; trees changed through content control are never evicted. */
const TREE_CACHE_LIMIT = 5_000;

export interface AddPostInput {
  subforum: string;
  title: string;
  selftext?: string;
  url?: string;
  author?: string;
  over18?: boolean;
  spoiler?: boolean;
  /** Epoch seconds; default: the real current time. */
  at?: number;
  /** Id of the post this one crossposts (its `crosspost_parent`). */
  crosspostOf?: string;
}

export interface AddCommentInput {
  postId: string;
  /** Comment id to reply to; a top-level comment when absent. */
  parentId?: string;
  body: string;
  author?: string;
  at?: number;
}

export type PostPatch = Partial<Pick<SimPost, 'title' | 'score' | 'locked' | 'stickied' | 'archived' | 'over18' | 'spoiler' | 'linkFlair' | 'distinguished'>>;

/** The simulated forum's state. Tests and demos change it directly or through `/__sim/forum/…`. */
export class ForumWorld {
  readonly seed: number;
  readonly size: WorldSize;
  readonly epoch = WORLD_EPOCH;
  readonly landmarks: ForumLandmarks;
  readonly generationMs: number;
  private readonly subforums = new Map<string, SimSubforum>();
  private readonly subforumOrder: SimSubforum[] = [];
  private readonly posts: SimPost[];
  private readonly postsBySubforum = new Map<string, SimPost[]>();
  private readonly trees = new Map<number, SimCommentTree>();
  private readonly pinnedTrees = new Set<number>();
  private readonly startedAt = Date.now();
  /**
   * Set through the control API: post search answers any page after the first `stallAt` results with the `after` it
   * was sent; searches and listings send `overfill` items more than a page asked for.
   */
  paging: { stallAt?: number; overfill?: number } = {};

  constructor(opts: { seed?: number; size?: WorldSize } = {}) {
    const started = performance.now();
    this.seed = opts.seed ?? 1;
    this.size = opts.size ?? 'small';
    const generated = generateForumWorld(this.seed, this.size);
    for (const sub of generated.subforums) this.registerSubforum(sub);
    this.posts = generated.posts;
    for (const post of this.posts) this.postsIn(post.subforum).push(post);
    this.landmarks = generated.landmarks;
    this.generationMs = performance.now() - started;
  }

  /**
   * The world clock: starts at the fixed epoch when the world is built and runs in real time, so generated
   * ages never change while content added later is always newer.
   */
  now(): number {
    return this.epoch + Math.floor((Date.now() - this.startedAt) / 1000);
  }

  // ---- reads ---------------------------------------------------------------------------------

  subforum(name: string): SimSubforum | undefined {
    return this.subforums.get(name.toLowerCase());
  }

  allSubforums(): readonly SimSubforum[] {
    return this.subforumOrder;
  }

  post(id: string): SimPost | undefined {
    const index = postIndexOf(id);
    return index === undefined ? undefined : this.posts[index];
  }

  allPosts(): readonly SimPost[] {
    return this.posts;
  }

  /** Posts of one community, oldest first. */
  postsOf(name: string): readonly SimPost[] {
    return this.postsBySubforum.get(name.toLowerCase()) ?? [];
  }

  comment(id: string): SimComment | undefined {
    const location = commentLocation(id);
    if (!location) return undefined;
    const post = this.posts[location.postIndex];
    return post ? this.tree(post).byId.get(id) : undefined;
  }

  tree(post: SimPost): SimCommentTree {
    let tree = this.trees.get(post.index);
    if (tree) return tree;
    tree = generateCommentTree(this.seed, post);
    if (this.trees.size >= TREE_CACHE_LIMIT) this.evictOneTree();
    this.trees.set(post.index, tree);
    return tree;
  }

  numComments(post: SimPost): number {
    return post.generatedComments + post.addedComments;
  }

  // ---- content control -----------------------------------------------------------------------

  addSubforum(input: { name: string; type?: SubforumType; over18?: boolean; quarantine?: boolean; banned?: boolean; subscribers?: number; description?: string; at?: number }): SimSubforum {
    if (this.subforum(input.name)) throw new Error(`r/${input.name} exists`);
    const sub: SimSubforum = {
      id: subforumIdOf(this.subforumOrder.length),
      name: input.name,
      title: input.name,
      description: input.description ?? '',
      type: input.type ?? 'public',
      banned: input.banned ?? false,
      quarantine: input.quarantine ?? false,
      over18: input.over18 ?? false,
      subscribers: input.subscribers ?? 1,
      activeUsers: 1,
      createdUtc: input.at ?? this.now(),
      submissionType: 'any',
      lang: 'en',
      icon: '',
      banner: '',
    };
    this.registerSubforum(sub);
    return sub;
  }

  updateSubforum(name: string, patch: Partial<Pick<SimSubforum, 'type' | 'banned' | 'quarantine' | 'over18' | 'subscribers' | 'description' | 'title'>>): SimSubforum {
    const sub = this.requireSubforum(name);
    Object.assign(sub, patch);
    return sub;
  }

  addPost(input: AddPostInput): SimPost {
    const sub = this.requireSubforum(input.subforum);
    const parent = input.crosspostOf === undefined ? undefined : this.requirePost(input.crosspostOf);
    const index = this.posts.length;
    const createdUtc = input.at ?? this.now();
    const post: SimPost = {
      index,
      id: postIdOf(index),
      subforum: sub.name,
      title: input.title,
      selftext: input.selftext ?? '',
      author: input.author ?? 'sim_user',
      createdUtc,
      kind: input.url ? 'link' : 'self',
      linkUrl: input.url ?? null,
      score: 1,
      upvoteRatio: 1,
      over18: input.over18 ?? sub.over18,
      spoiler: input.spoiler ?? false,
      stickied: false,
      locked: false,
      archived: false,
      distinguished: null,
      edited: null,
      removedByCategory: null,
      crosspostParent: parent ? parent.id : null,
      numCrossposts: 0,
      linkFlair: null,
      authorFlair: null,
      generatedComments: 0,
      addedComments: 0,
    };
    if (parent) parent.numCrossposts += 1;
    this.posts.push(post);
    this.postsIn(sub.name).push(post);
    return post;
  }

  editPost(id: string, change: { selftext?: string; title?: string; at?: number }): SimPost {
    const post = this.requirePost(id);
    if (change.selftext !== undefined) post.selftext = change.selftext;
    if (change.title !== undefined) post.title = change.title;
    post.edited = change.at ?? this.now();
    return post;
  }

  updatePost(id: string, patch: PostPatch): SimPost {
    return Object.assign(this.requirePost(id), patch);
  }

  /** The author deletes: the platform blanks author and body and says `deleted`. */
  deletePost(id: string): SimPost {
    return Object.assign(this.requirePost(id), { author: '[deleted]', selftext: '[deleted]', removedByCategory: 'deleted' });
  }

  /** A moderator (or the platform: category `reddit`, or automod: `automod_filtered`) removes. */
  removePost(id: string, category = 'moderator'): SimPost {
    const post = this.requirePost(id);
    return Object.assign(post, { selftext: post.selftext ? '[removed]' : '', removedByCategory: category });
  }

  addComment(input: AddCommentInput): SimComment {
    const post = this.requirePost(input.postId);
    const tree = this.tree(post);
    const position = post.generatedComments + post.addedComments;
    if (position >= COMMENT_SLOTS) throw new Error(`t3_${post.id} is full`);
    const parent = input.parentId ? tree.byId.get(input.parentId) : undefined;
    if (input.parentId && !parent) throw new Error(`t1_${input.parentId} is not in t3_${post.id}`);
    const author = input.author ?? 'sim_user';
    const comment: SimComment = {
      id: commentIdOf(post.index, position),
      postId: post.id,
      parentId: parent ? `t1_${parent.id}` : `t3_${post.id}`,
      author,
      body: input.body,
      score: 1,
      createdUtc: input.at ?? this.now(),
      edited: null,
      distinguished: null,
      stickied: false,
      scoreHidden: false,
      depth: parent ? parent.depth + 1 : 0,
      isSubmitter: author === post.author,
    };
    post.addedComments += 1;
    tree.byId.set(comment.id, comment);
    const siblings = tree.children.get(comment.parentId);
    if (siblings) siblings.push(comment);
    else tree.children.set(comment.parentId, [comment]);
    this.pinnedTrees.add(post.index);
    return comment;
  }

  editComment(id: string, change: { body: string; at?: number }): SimComment {
    const comment = this.requireComment(id);
    comment.body = change.body;
    comment.edited = change.at ?? this.now();
    return comment;
  }

  deleteComment(id: string): SimComment {
    return Object.assign(this.requireComment(id), { author: '[deleted]', body: '[deleted]' });
  }

  removeComment(id: string): SimComment {
    return Object.assign(this.requireComment(id), { author: '[deleted]', body: '[removed]' });
  }

  // ---- internals -----------------------------------------------------------------------------

  private registerSubforum(sub: SimSubforum): void {
    this.subforums.set(sub.name.toLowerCase(), sub);
    this.subforumOrder.push(sub);
  }

  private postsIn(name: string): SimPost[] {
    const key = name.toLowerCase();
    let list = this.postsBySubforum.get(key);
    if (!list) this.postsBySubforum.set(key, (list = []));
    return list;
  }

  private requireSubforum(name: string): SimSubforum {
    const sub = this.subforum(name);
    if (!sub) throw new Error(`no r/${name}`);
    return sub;
  }

  private requirePost(id: string): SimPost {
    const post = this.post(id);
    if (!post) throw new Error(`no t3_${id}`);
    return post;
  }

  private requireComment(id: string): SimComment {
    const comment = this.comment(id);
    if (!comment) throw new Error(`no t1_${id}`);
    const location = commentLocation(id)!;
    this.pinnedTrees.add(location.postIndex);
    return comment;
  }

  private evictOneTree(): void {
    for (const index of this.trees.keys()) {
      if (this.pinnedTrees.has(index)) continue;
      this.trees.delete(index);
      return;
    }
  }
}

