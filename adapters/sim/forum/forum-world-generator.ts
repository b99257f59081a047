import { createRng, type Rng } from '../rng.ts';
import type { SimComment, SimCommentTree, SimPost, SimSubforum, SubforumType } from './forum-sim-records.ts';
import { COMMENT_SLOTS, commentIdOf, mixSeed, postIdOf, subforumIdOf } from './forum-ids.ts';
import { title, USERNAMES, VOCABULARY, words } from './forum-text.ts';

/** The world's "now": fixed, so generated ages (and `archived`) are the same on every run. */
export const WORLD_EPOCH = 1767225600; // 2026-01-01T00:00:00Z
const DAY = 86_400;
const ARCHIVE_AGE = 180 * DAY;
const MAX_GENERATED_COMMENTS = 1_500;

export type WorldSize = 'small' | 'large';

const SIZES: Record<WorldSize, { generatedSubforums: number; posts: number }> = {
  small: { generatedSubforums: 10, posts: 400 },
  large: { generatedSubforums: 3_000, posts: 100_000 },
};

/** Named items every world contains, so tests and demos can reach each case directly. */
export interface ForumLandmarks {
  posts: {
    deletedByAuthor: string;
    removedByModerator: string;
    nsfw: string;
    crosspost: string;
    crosspostOriginal: string;
    edited: string;
    stickiedLocked: string;
    archived: string;
    poll: string;
    gallery: string;
    video: string;
    deepThread: string;
    bigThread: string;
    inQuarantined: string;
    inPrivate: string;
    inNsfwCommunity: string;
    spoilerImage: string;
    link: string;
    inBanned: string;
    automodFiltered: string;
    removedByPlatform: string;
    commentCases: string;
  };
  comments: {
    deleted: string;
    removed: string;
    edited: string;
    adminDistinguished: string;
    stickiedModerator: string;
    scoreHidden: string;
    reply: string;
  };
  subforums: {
    public: string;
    restricted: string;
    private: string;
    banned: string;
    quarantined: string;
    nsfw: string;
    archived: string;
    goldRestricted: string;
    user: string;
    language: string;
    linkOnly: string;
  };
}

interface SubforumSeed {
  name: string;
  type: SubforumType;
  banned?: boolean;
  quarantine?: boolean;
  over18?: boolean;
  lang?: string;
  submissionType?: 'any' | 'link' | 'self';
  subscribers: number;
}

const LANDMARK_SUBFORUMS: SubforumSeed[] = [
  { name: 'programming', type: 'public', subscribers: 6_500_000 },
  { name: 'pics', type: 'public', subscribers: 30_000_000 },
  { name: 'AskForum', type: 'public', subscribers: 45_000_000 },
  { name: 'announcements', type: 'restricted', subscribers: 300_000 },
  { name: 'secretclub', type: 'private', subscribers: 1_200 },
  { name: 'bannedplace', type: 'public', banned: true, subscribers: 9_000 },
  { name: 'quarantinedzone', type: 'public', quarantine: true, subscribers: 40_000 },
  { name: 'nsfwcorner', type: 'public', over18: true, subscribers: 250_000 },
  { name: 'oldarchive', type: 'archived', subscribers: 70_000 },
  { name: 'goldlounge', type: 'gold_restricted', subscribers: 5_000 },
  { name: 'u_river_garden0', type: 'user', subscribers: 12 },
  { name: 'nl', type: 'public', lang: 'nl', subscribers: 500_000 },
  { name: 'linksonly', type: 'public', submissionType: 'link', subscribers: 88_000 },
];

export interface GeneratedForumWorld {
  subforums: SimSubforum[];
  posts: SimPost[];
  landmarks: ForumLandmarks;
}

export function generateForumWorld(seed: number, size: WorldSize): GeneratedForumWorld {
  const rng = createRng(seed);
  const subforums = generateSubforums(rng, SIZES[size].generatedSubforums);
  const posts = generatePosts(rng, subforums, SIZES[size].posts);
  return { subforums, posts, landmarks: landmarksOf(posts) };
}

function generateSubforums(rng: Rng, generated: number): SimSubforum[] {
  const seeds: SubforumSeed[] = [...LANDMARK_SUBFORUMS];
  for (let i = 0; i < generated; i++) {
    const name = `${VOCABULARY[i % VOCABULARY.length]}_${VOCABULARY[(i * 13 + 5) % VOCABULARY.length]}${Math.floor(i / VOCABULARY.length)}`.slice(0, 21);
    seeds.push({
      name,
      type: rng.chance(0.05) ? 'restricted' : 'public',
      over18: rng.chance(0.08),
      subscribers: Math.floor(rng.next() ** 3 * 2_000_000),
    });
  }
  return seeds.map((s, i) => ({
    id: subforumIdOf(i),
    name: s.name,
    title: s.name === 'nl' ? 'Nederland' : `${s.name.replace(/_/g, ' ')} community`,
    description: `A place about ${words(rng, 2, 5)} and ${s.name}.`,
    type: s.type,
    banned: s.banned ?? false,
    quarantine: s.quarantine ?? false,
    over18: s.over18 ?? false,
    subscribers: s.subscribers,
    activeUsers: Math.floor((s.subscribers / 1000) * (0.2 + rng.next() * 3)),
    createdUtc: WORLD_EPOCH - rng.int(400, 6000) * DAY,
    submissionType: s.submissionType ?? 'any',
    lang: s.lang ?? 'en',
    icon: rng.chance(0.7) ? `https://styles.forum.example/t5_${subforumIdOf(i)}/icon.png?width=256` : '',
    banner: rng.chance(0.5) ? `https://styles.forum.example/t5_${subforumIdOf(i)}/banner.png` : '',
  }));
}

/** Landmark post slots: index → (community, tweaks). The rest of the world is random. */
const LANDMARK_POSTS: Array<{ key: keyof ForumLandmarks['posts']; sub: string; apply: (p: SimPost) => void }> = [
  { key: 'deletedByAuthor', sub: 'programming', apply: (p) => Object.assign(p, { author: '[deleted]', selftext: '[deleted]', removedByCategory: 'deleted', edited: p.createdUtc + 600 }) },
  { key: 'removedByModerator', sub: 'programming', apply: (p) => Object.assign(p, { selftext: '[removed]', removedByCategory: 'moderator' }) },
  { key: 'nsfw', sub: 'pics', apply: (p) => Object.assign(p, { over18: true, kind: 'image', linkUrl: 'https://i.forum-media.example/nsfw1.jpg' }) },
  { key: 'crosspost', sub: 'pics', apply: (p) => Object.assign(p, { kind: 'crosspost', crosspostParent: postIdOf(4) }) },
  { key: 'crosspostOriginal', sub: 'programming', apply: (p) => Object.assign(p, { numCrossposts: 1 }) },
  { key: 'edited', sub: 'programming', apply: (p) => Object.assign(p, { kind: 'self', edited: p.createdUtc + 3600, selftext: 'Edit: fixed the quantum harbor typo.' }) },
  { key: 'stickiedLocked', sub: 'announcements', apply: (p) => Object.assign(p, { stickied: true, locked: true, distinguished: 'moderator', kind: 'self' }) },
  { key: 'archived', sub: 'oldarchive', apply: (p) => Object.assign(p, { createdUtc: WORLD_EPOCH - 900 * DAY, archived: true }) },
  { key: 'poll', sub: 'AskForum', apply: (p) => Object.assign(p, { kind: 'poll', linkUrl: null }) },
  { key: 'gallery', sub: 'pics', apply: (p) => Object.assign(p, { kind: 'gallery' }) },
  { key: 'video', sub: 'pics', apply: (p) => Object.assign(p, { kind: 'video' }) },
  { key: 'deepThread', sub: 'AskForum', apply: (p) => Object.assign(p, { kind: 'self', generatedComments: 16 }) },
  { key: 'bigThread', sub: 'AskForum', apply: (p) => Object.assign(p, { kind: 'self', generatedComments: 600 }) },
  { key: 'inQuarantined', sub: 'quarantinedzone', apply: () => undefined },
  { key: 'inPrivate', sub: 'secretclub', apply: () => undefined },
  { key: 'inNsfwCommunity', sub: 'nsfwcorner', apply: (p) => Object.assign(p, { over18: true }) },
  { key: 'spoilerImage', sub: 'pics', apply: (p) => Object.assign(p, { kind: 'image', spoiler: true, linkUrl: 'https://i.forum-media.example/spoiler.jpg' }) },
  { key: 'link', sub: 'linksonly', apply: (p) => Object.assign(p, { kind: 'link', linkUrl: 'https://en.wikipedia.org/wiki/Quantum_harbor' }) },
  { key: 'inBanned', sub: 'bannedplace', apply: () => undefined },
  { key: 'automodFiltered', sub: 'programming', apply: (p) => Object.assign(p, { removedByCategory: 'automod_filtered' }) },
  { key: 'removedByPlatform', sub: 'programming', apply: (p) => Object.assign(p, { removedByCategory: 'reddit', selftext: '[removed]' }) },
  { key: 'commentCases', sub: 'programming', apply: (p) => Object.assign(p, { kind: 'self', generatedComments: 8 }) },
];

const KINDS = ['self', 'self', 'self', 'link', 'image', 'image', 'video', 'gallery', 'poll'] as const;

function generatePosts(rng: Rng, subforums: SimSubforum[], count: number): SimPost[] {
  const byName = new Map(subforums.map((s) => [s.name, s]));
  // Busy communities get most posts: a squared uniform skews the pick toward the front of the list.
  // Communities nobody can read get only a trickle, as on the platform.
  const open = subforums.filter((s) => !s.banned && !s.quarantine && s.type !== 'private' && s.type !== 'gold_restricted');
  const closed = subforums.filter((s) => !s.banned && !open.includes(s));
  const posts: SimPost[] = new Array(count);
  for (let index = 0; index < count; index++) {
    const landmark = LANDMARK_POSTS[index];
    const pool = rng.chance(0.02) ? closed : open;
    const sub = landmark ? byName.get(landmark.sub)! : pool[Math.floor(rng.next() ** 2 * pool.length)];
    const kind = landmark ? 'self' : sub.submissionType === 'link' ? 'link' : rng.pick(KINDS);
    const createdUtc = WORLD_EPOCH - rng.int(60, 720 * DAY);
    const score = Math.floor(rng.next() ** 4 * 40_000) - rng.int(0, 20);
    const post: SimPost = {
      index,
      id: postIdOf(index),
      subforum: sub.name,
      title: title(rng),
      selftext: kind === 'self' || kind === 'poll' || rng.chance(0.1) ? words(rng, 5, 60) : '',
      author: rng.pick(USERNAMES),
      createdUtc,
      kind,
      linkUrl: kind === 'link' ? `https://news.example/${words(rng, 1, 1)}/${index}` : kind === 'image' ? `https://i.forum-media.example/${postIdOf(index)}.jpg` : null,
      score,
      upvoteRatio: Math.round((0.5 + rng.next() * 0.5) * 100) / 100,
      over18: sub.over18 || rng.chance(0.03),
      spoiler: rng.chance(0.02),
      stickied: false,
      locked: rng.chance(0.01),
      archived: createdUtc < WORLD_EPOCH - ARCHIVE_AGE || sub.type === 'archived',
      distinguished: null,
      edited: rng.chance(0.1) ? createdUtc + rng.int(60, 5 * DAY) : null,
      removedByCategory: rng.chance(0.015) ? rng.pick(['moderator', 'deleted', 'automod_filtered', 'reddit']) : null,
      crosspostParent: null,
      numCrossposts: 0,
      linkFlair: rng.chance(0.3) ? rng.pick(['Discussion', 'Question', ':snoo: Meta', 'News']) : null,
      authorFlair: rng.chance(0.2) ? rng.pick(['', 'Veteran', 'Mod helper']) : null,
      generatedComments: Math.min(MAX_GENERATED_COMMENTS, Math.floor(rng.next() ** 3 * 60)),
      addedComments: 0,
    };
    if (post.removedByCategory === 'deleted') Object.assign(post, { author: '[deleted]', selftext: post.selftext ? '[deleted]' : '' });
    if (post.removedByCategory === 'moderator' && post.selftext) post.selftext = '[removed]';
    if (landmark) {
      landmark.apply(post);
      post.over18 ||= sub.over18;
    }
    posts[index] = post;
  }
  return posts;
}

function landmarksOf(posts: SimPost[]): ForumLandmarks {
  const postIds = Object.fromEntries(LANDMARK_POSTS.map((l, i) => [l.key, posts[i].id])) as ForumLandmarks['posts'];
  const commentPost = LANDMARK_POSTS.findIndex((l) => l.key === 'commentCases');
  const c = (position: number): string => commentIdOf(commentPost, position);
  return {
    posts: postIds,
    comments: { stickiedModerator: c(0), deleted: c(1), removed: c(2), edited: c(3), adminDistinguished: c(4), scoreHidden: c(5), reply: c(6) },
    subforums: {
      public: 'programming',
      restricted: 'announcements',
      private: 'secretclub',
      banned: 'bannedplace',
      quarantined: 'quarantinedzone',
      nsfw: 'nsfwcorner',
      archived: 'oldarchive',
      goldRestricted: 'goldlounge',
      user: 'u_river_garden0',
      language: 'nl',
      linkOnly: 'linksonly',
    },
  };
}

/** Builds a post's generated comments. Deterministic per (seed, post), so it can run lazily in any order. */
export function generateCommentTree(seed: number, post: SimPost): SimCommentTree {
  const rng = createRng(mixSeed(seed, post.index));
  const tree: SimCommentTree = { byId: new Map(), children: new Map() };
  const landmark = LANDMARK_POSTS[post.index]?.key;
  const all: SimComment[] = [];
  for (let k = 0; k < Math.min(post.generatedComments, COMMENT_SLOTS); k++) {
    let parent: SimComment | undefined;
    if (landmark === 'deepThread') parent = all[k - 1];
    else if (landmark === 'commentCases') parent = k === 6 ? all[3] : k === 7 ? all[6] : undefined;
    else if (k > 0 && !rng.chance(0.35)) parent = all[Math.max(0, all.length - 1 - Math.floor(rng.next() ** 2 * all.length))];
    const createdUtc = post.createdUtc + 60 * (k + 1) + rng.int(0, 59);
    const comment: SimComment = {
      id: commentIdOf(post.index, k),
      postId: post.id,
      parentId: parent ? `t1_${parent.id}` : `t3_${post.id}`,
      author: rng.pick(USERNAMES),
      body: words(rng, 3, 40),
      score: rng.int(-5, 500),
      createdUtc,
      edited: rng.chance(0.05) ? createdUtc + rng.int(30, 3 * DAY) : null,
      distinguished: null,
      stickied: false,
      scoreHidden: false,
      depth: parent ? parent.depth + 1 : 0,
      isSubmitter: false,
    };
    if (rng.chance(0.03)) Object.assign(comment, { author: '[deleted]', body: '[deleted]' });
    else if (rng.chance(0.02)) Object.assign(comment, { author: '[deleted]', body: '[removed]' });
    if (rng.chance(0.1)) Object.assign(comment, { author: post.author, isSubmitter: post.author !== '[deleted]' });
    if (landmark === 'commentCases') applyCommentCase(comment, k);
    all.push(comment);
    tree.byId.set(comment.id, comment);
    const siblings = tree.children.get(comment.parentId);
    if (siblings) siblings.push(comment);
    else tree.children.set(comment.parentId, [comment]);
  }
  return tree;
}

function applyCommentCase(comment: SimComment, position: number): void {
  const cases: Array<Partial<SimComment>> = [
    { stickied: true, distinguished: 'moderator', author: 'AutoModerator', body: 'Please read the rules before commenting.', scoreHidden: true },
    { author: '[deleted]', body: '[deleted]' },
    { author: '[deleted]', body: '[removed]' },
    { edited: comment.createdUtc + 120, body: 'Edited: the ember signal was wrong.' },
    { distinguished: 'admin', author: 'forum_admin' },
    { scoreHidden: true, edited: null },
    { body: 'A reply to the edited comment.', edited: null },
    { body: 'A reply to the reply.', edited: null },
  ];
  Object.assign(comment, { edited: null, distinguished: null, stickied: false, scoreHidden: false }, cases[position] ?? {});
}
