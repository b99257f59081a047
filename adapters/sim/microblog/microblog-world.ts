/**
 * The simulated microblog's state: accounts, posts (with their edit versions), follows, Lists, Spaces and
 * Articles. The serializer turns these records into the platform's wire format; the routes page over them.
 * Content control (add, edit, delete, repost at a given time) goes through the methods here so every index stays
 * consistent.
 */

export type VerifiedType = 'none' | 'blue' | 'Business' | 'Government' | 'legacy';
/** Which of the platform's three user object shapes this account is served in (FIELD-NOTES 2.6). */
export type UserShape = '2026' | 'transitional' | 'legacy';

export interface SimUser {
  id: string;
  username: string;
  name: string;
  bio: string;
  location: string;
  website: string | null;
  createdAt: number;
  verifiedType: VerifiedType;
  protected: boolean;
  suspended: boolean;
  avatarUrl: string;
  bannerUrl: string | null;
  pinnedPostId: string | null;
  /** The verified organisation this account is affiliated with. */
  affiliateOf: string | null;
  highlightedPostIds: string[];
  likesGiven: number;
  basedIn: string | null;
  usernameChanges: number;
  identityVerified: boolean;
  shape: UserShape;
}

export interface SimMedia {
  id: string;
  type: 'photo' | 'video' | 'animated_gif';
  width: number;
  height: number;
  /** Video/GIF durations in ms. */
  durationMs: number;
  /** Only an HLS stream, no MP4 (the spec's "null when only a stream is offered"). */
  streamOnly: boolean;
}

export interface SimPost {
  id: string;
  authorId: string;
  /** Plain text with full URLs; the serializer shortens links and escapes. */
  text: string;
  createdAt: number;
  lang: string;
  inReplyToId: string | null;
  conversationId: string;
  quotedId: string | null;
  repostOfId: string | null;
  media: SimMedia[];
  likeCount: number;
  replyCount: number;
  viewCount: number;
  bookmarkCount: number;
  /** Version ids oldest first; every version is its own post record. */
  editIds: string[];
  deleted: boolean;
  articleId: string | null;
  spaceId: string | null;
  promoted: boolean;
}

/** Article body in the platform's Draft.js form; offsets are code points as upstream sends them. */
export interface SimArticleBlock {
  key: string;
  type: string;
  text: string;
  depth: number;
  inlineStyleRanges: Array<{ offset: number; length: number; style: string }>;
  entityRanges: Array<{ key: number; offset: number; length: number }>;
  data: Record<string, unknown>;
}

export interface SimArticle {
  id: string;
  postId: string;
  title: string;
  previewText: string;
  cover: SimMedia | null;
  blocks: SimArticleBlock[];
  entityMap: Array<{ key: string; value: { type: string; mutability: string; data: Record<string, unknown> } }>;
  media: SimMedia[];
  publishedAt: number;
  updatedAt: number;
}

export interface SimList {
  id: string;
  name: string;
  description: string;
  ownerId: string;
  createdAt: number;
  memberIds: string[];
  subscriberCount: number;
  private: boolean;
}

export interface SimSpace {
  id: string;
  title: string;
  state: 'NotStarted' | 'Running' | 'Ended' | 'Canceled';
  hostIds: string[];
  speakerIds: string[];
  participantCount: number;
  lang: string;
  createdAt: number;
  scheduledStart: number | null;
  startedAt: number | null;
  endedAt: number | null;
  recorded: boolean;
}

/** Snowflake-style ids: time-ordered and beyond 2^53, like the platform's. */
export const SNOWFLAKE_EPOCH = 1288834974657n;

/** The id of a post created at `at` (epoch ms) with sequence number `sequence` (0–4095). */
export function snowflakeId(at: number, sequence = 4095): string {
  return ((BigInt(Math.floor(at)) - SNOWFLAKE_EPOCH) * 4194304n + BigInt(sequence)).toString();
}

export class MicroblogWorld {
  readonly users = new Map<string, SimUser>();
  readonly usersByName = new Map<string, SimUser>();
  readonly posts = new Map<string, SimPost>();
  /** Each author's visible posts (latest versions), oldest first. */
  readonly postsByAuthor = new Map<string, SimPost[]>();
  readonly repliesTo = new Map<string, SimPost[]>();
  readonly quotesOf = new Map<string, SimPost[]>();
  readonly repostsOf = new Map<string, SimPost[]>();
  /** Followers of each account, most recent first. */
  readonly followers = new Map<string, string[]>();
  readonly following = new Map<string, string[]>();
  readonly lists = new Map<string, SimList>();
  readonly spaces = new Map<string, SimSpace>();
  readonly articles = new Map<string, SimArticle>();
  /** Posts in timeline order (newest last) for search and List timelines. */
  readonly timeline: SimPost[] = [];
  private sequence = 0;
  now: number;
  /**
   * How the platform misbehaves on long lists, set through the control API: `capAt` ends every paged list after
   * that many items (as the platform does on very long ones); `stallAt` answers any page from that offset on with
   * the cursor it was sent, so the walk cannot advance; `overfill` sends that many items more than a page asked for
   * (the platform's web timelines take `count` as a hint).
   */
  paging: { capAt?: number; stallAt?: number; overfill?: number } = {};

  constructor(now: number) {
    this.now = now;
  }

  /** A fresh time-ordered id. Sequence 4095 is never used here: it is kept for `snowflakeId` fixed ids. */
  nextId(at: number): string {
    this.sequence = (this.sequence + 1) % 4095;
    return snowflakeId(at, this.sequence);
  }

  addUser(user: SimUser): SimUser {
    this.users.set(user.id, user);
    this.usersByName.set(user.username.toLowerCase(), user);
    this.followers.set(user.id, []);
    this.following.set(user.id, []);
    this.postsByAuthor.set(user.id, []);
    return user;
  }

  /** Follow edges already made, so the generator's random draws never follow the same account twice. */
  private readonly edges = new Set<string>();

  follow(followerId: string, followeeId: string): void {
    const edge = `${followerId}>${followeeId}`;
    if (followerId === followeeId || this.edges.has(edge)) return;
    this.edges.add(edge);
    this.followers.get(followeeId)!.unshift(followerId);
    this.following.get(followerId)!.unshift(followeeId);
  }

  userByName(name: string): SimUser | undefined {
    return this.usersByName.get(name.toLowerCase());
  }

  /** Records a post (timeline order is creation order: callers add in time order, or pass `at` later than before). */
  insertPost(post: SimPost): SimPost {
    this.posts.set(post.id, post);
    this.postsByAuthor.get(post.authorId)!.push(post);
    this.timeline.push(post);
    if (post.inReplyToId) push(this.repliesTo, post.inReplyToId, post);
    if (post.quotedId) push(this.quotesOf, post.quotedId, post);
    if (post.repostOfId) push(this.repostsOf, post.repostOfId, post);
    if (post.inReplyToId) {
      const parent = this.posts.get(post.inReplyToId);
      if (parent) parent.replyCount += 1;
    }
    return post;
  }

  /** A new post at `at` (default now). */
  addPost(input: {
    authorId: string;
    text: string;
    at?: number;
    inReplyToId?: string | null;
    quotedId?: string | null;
    lang?: string;
    media?: SimMedia[];
    /** A fixed id (well-known showcase posts); default a fresh one. */
    id?: string;
  }): SimPost {
    const author = this.users.get(input.authorId);
    if (!author) throw new Error(`no such user ${input.authorId}`);
    const at = input.at ?? this.now;
    const id = input.id ?? this.nextId(at);
    if (this.posts.has(id)) throw new Error(`post id ${id} already taken`);
    const parent = input.inReplyToId ? this.posts.get(input.inReplyToId) : undefined;
    if (input.inReplyToId && !parent) throw new Error(`no such post ${input.inReplyToId}`);
    return this.insertPost({
      id,
      authorId: input.authorId,
      text: input.text,
      createdAt: at,
      lang: input.lang ?? 'en',
      inReplyToId: parent?.id ?? null,
      conversationId: parent ? parent.conversationId : id,
      quotedId: input.quotedId ?? null,
      repostOfId: null,
      media: input.media ?? [],
      ...freshPostState(id),
    });
  }

  /** Edits a post: a new version with a new id replaces it in timelines; the old version stays readable by id. */
  editPost(postId: string, text: string, at?: number, fixedId?: string): SimPost {
    const old = this.posts.get(postId);
    if (!old || old.deleted) throw new Error(`no such post ${postId}`);
    const latest = this.posts.get(old.editIds[old.editIds.length - 1])!;
    const when = at ?? this.now;
    const id = fixedId ?? this.nextId(when);
    const editIds = [...latest.editIds, id];
    const version: SimPost = { ...latest, id, text, createdAt: when, editIds };
    for (const v of editIds.slice(0, -1)) {
      const prior = this.posts.get(v);
      if (prior) prior.editIds = editIds;
    }
    this.posts.set(id, version);
    replaceIn(this.postsByAuthor.get(latest.authorId)!, latest, version);
    replaceIn(this.timeline, latest, version);
    return version;
  }

  deletePost(postId: string): void {
    const post = this.posts.get(postId);
    if (!post) throw new Error(`no such post ${postId}`);
    for (const id of post.editIds) {
      const v = this.posts.get(id);
      if (v) v.deleted = true;
    }
  }

  /** `userId` reposts `postId` at `at`. */
  repost(userId: string, postId: string, at?: number, fixedId?: string): SimPost {
    const target = this.posts.get(postId);
    // Reposting a repost reposts the original, as the platform does.
    const original = target?.repostOfId ? this.posts.get(target.repostOfId) : target;
    if (!original || original.deleted) throw new Error(`no such post ${postId}`);
    if (!this.users.has(userId)) throw new Error(`no such user ${userId}`);
    if (this.users.get(original.authorId)?.protected) throw new Error(`post ${postId} is protected and cannot be reposted`);
    const when = at ?? this.now;
    const id = fixedId ?? this.nextId(when);
    return this.insertPost({
      ...original,
      id,
      authorId: userId,
      text: original.text,
      createdAt: when,
      inReplyToId: null,
      conversationId: id,
      quotedId: null,
      repostOfId: original.id,
      media: original.media,
      ...freshPostState(id),
    });
  }

  /** The newest version of a post, following its edit chain. */
  latest(post: SimPost): SimPost {
    return this.posts.get(post.editIds[post.editIds.length - 1]) ?? post;
  }

  isLatest(post: SimPost): boolean {
    return post.editIds[post.editIds.length - 1] === post.id;
  }

  /** Visible: not deleted, newest version, author neither suspended. */
  isVisible(post: SimPost): boolean {
    const author = this.users.get(post.authorId);
    return !post.deleted && this.isLatest(post) && !!author && !author.suspended;
  }

  repostCount(post: SimPost): number {
    return post.editIds.reduce((n, id) => n + (this.repostsOf.get(id)?.length ?? 0), 0);
  }

  /** Replies to any version of a post. */
  repliesOf(post: SimPost): SimPost[] {
    return post.editIds.flatMap((id) => this.repliesTo.get(id) ?? []);
  }

  quoteCount(post: SimPost): number {
    return post.editIds.reduce((n, id) => n + (this.quotesOf.get(id)?.length ?? 0), 0);
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function replaceIn<T>(list: T[], old: T, next: T): void {
  const index = list.lastIndexOf(old);
  if (index >= 0) list[index] = next;
}

/** What every new post or repost starts with: no engagement, one version, nothing attached. */
function freshPostState(id: string): Pick<SimPost, 'likeCount' | 'replyCount' | 'viewCount' | 'bookmarkCount' | 'editIds' | 'deleted' | 'articleId' | 'spaceId' | 'promoted'> {
  return { likeCount: 0, replyCount: 0, viewCount: 0, bookmarkCount: 0, editIds: [id], deleted: false, articleId: null, spaceId: null, promoted: false };
}
