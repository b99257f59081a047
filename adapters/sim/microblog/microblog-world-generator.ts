import { createRng, type Rng } from '../rng.ts';
import { buildShowcaseArticle } from './microblog-sim-article.ts';
import { MicroblogWorld, snowflakeId, type SimMedia, type SimPost, type SimUser, type UserShape, type VerifiedType } from './microblog-world.ts';

export type WorldSize = 'small' | 'large';

/** The world's clock: every generated timestamp lies before it. */
export const SIM_NOW = Date.UTC(2026, 7, 1, 12, 0, 0);
const DAY = 86_400_000;

const WORDS = (
  'api data stream launch today update build ship team release notes docs search thread reply quote ' +
  'morning coffee weekend travel music football market price city night photo video design code test ' +
  'server latency cache graph model agent prompt open source community event talk space live news'
).split(' ');
const HASHTAGS = ['DevLife', 'OpenSource', 'AI', 'Launch', 'Café', 'Football', 'News', 'Music'];
const EMOJI = ['🚀', '😂', '🇸🇺', '👨‍💻', '𝕏', '🎉', '☕', '🔥'];
const LANGS = ['en', 'en', 'en', 'en', 'es', 'fr', 'de', 'ja'];
const COUNTRIES = ['United States', 'France', 'Japan', 'Brazil', 'Germany', null];
const FIRST = ['Ada', 'Linus', 'Grace', 'Alan', 'Hedy', 'Ken', 'Margaret', 'Dennis', 'Barbara', 'Tim', 'Radia', 'Guido'];
const LAST = ['Lovelace', 'Torvalds', 'Hopper', 'Turing', 'Lamarr', 'Thompson', 'Hamilton', 'Ritchie', 'Liskov', 'Lee', 'Perlman', 'Rossum'];

/** Well-known accounts every world contains, so tests and demos can name them. */
export const SIM_ACCOUNTS = {
  org: 'simdevs',
  blue: 'alice',
  plain: 'bob',
  threader: 'carol',
  protected: 'private_pat',
  suspended: 'banned_bill',
  government: 'gov_agency',
  legacyShape: 'legacy_larry',
  transitionalShape: 'transit_tina',
} as const;

/** Fixed ids of the well-known accounts (generated accounts never take ids in this range). */
export const SIM_USER_IDS: Record<keyof typeof SIM_ACCOUNTS, string> = {
  org: '1500000001',
  blue: '1500000002',
  plain: '1500000003',
  threader: '1500000004',
  protected: '1500000005',
  suspended: '1500000006',
  government: '1500000007',
  legacyShape: '1500000008',
  transitionalShape: '1500000009',
};

interface Sizes {
  users: number;
  posts: number;
  followsPerUser: [number, number];
  orgFollowers: number;
}

const SIZES: Record<WorldSize, Sizes> = {
  small: { users: 80, posts: 1_200, followsPerUser: [2, 12], orgFollowers: 75 },
  large: { users: 6_000, posts: 100_000, followsPerUser: [10, 60], orgFollowers: 5_900 },
};

function sentence(rng: Rng, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(rng.pick(WORDS));
  const text = out.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function makeMedia(world: MicroblogWorld, rng: Rng, type: SimMedia['type'], at: number, streamOnly = false): SimMedia {
  return {
    id: world.nextId(at - 1000),
    type,
    width: rng.pick([640, 1280, 1920]),
    height: rng.pick([360, 720, 1080]),
    durationMs: type === 'photo' ? 0 : rng.int(2_000, 120_000),
    streamOnly,
  };
}

function makeUser(world: MicroblogWorld, rng: Rng, username: string, opts: Partial<SimUser> = {}): SimUser {
  const createdAt = SIM_NOW - rng.int(30, 5000) * DAY;
  const first = rng.pick(FIRST);
  // Old accounts have short numeric ids; newer ones snowflakes beyond 2^53.
  const generated = rng.chance(0.3) ? String(rng.int(10_000, 999_999_999)) : world.nextId(createdAt);
  const id = opts.id ?? generated;
  return world.addUser({
    id,
    username,
    name: `${first} ${rng.pick(LAST)}`,
    bio: `${sentence(rng, rng.int(3, 10))} ${rng.chance(0.3) ? rng.pick(EMOJI) : ''}`.trim(),
    location: rng.chance(0.6) ? rng.pick(['Paris', 'Tokyo', 'San Francisco', 'Lagos', 'Berlin', 'São Paulo']) : '',
    website: rng.chance(0.4) ? `https://${username.toLowerCase()}.example.com/` : null,
    createdAt,
    verifiedType: 'none',
    protected: false,
    suspended: false,
    avatarUrl: `https://pbs.twimg.com/profile_images/${id}/avatar_normal.jpg`,
    bannerUrl: rng.chance(0.5) ? `https://pbs.twimg.com/profile_banners/${id}/${Math.floor(createdAt / 1000)}` : null,
    pinnedPostId: null,
    affiliateOf: null,
    highlightedPostIds: [],
    likesGiven: rng.int(0, 20_000),
    basedIn: rng.pick(COUNTRIES),
    usernameChanges: rng.int(0, 3),
    identityVerified: rng.chance(0.1),
    shape: '2026',
    ...opts,
  });
}

function namedUsers(world: MicroblogWorld, rng: Rng): Record<keyof typeof SIM_ACCOUNTS, SimUser> {
  const named = (key: keyof typeof SIM_ACCOUNTS, verifiedType: VerifiedType, extra: Partial<SimUser> = {}) =>
    makeUser(world, rng, SIM_ACCOUNTS[key], { verifiedType, id: SIM_USER_IDS[key], ...extra });
  return {
    org: named('org', 'Business', { name: 'Sim Developers', bio: 'The voice of the Sim Dev team & your source for API news.', identityVerified: false }),
    blue: named('blue', 'blue', { name: 'Alice Example 🚀' }),
    plain: named('plain', 'none', { name: 'Bob <Builder> & Co' }),
    threader: named('threader', 'blue', { name: 'Carol Threads' }),
    protected: named('protected', 'none', { protected: true, name: 'Pat Private' }),
    suspended: named('suspended', 'none', { suspended: true, name: 'Bill Banned' }),
    government: named('government', 'Government', { name: 'Government Agency' }),
    legacyShape: named('legacyShape', 'legacy', { shape: 'legacy' as UserShape, name: 'Larry Legacy' }),
    transitionalShape: named('transitionalShape', 'blue', { shape: 'transitional' as UserShape, name: 'Tina Transitional' }),
  };
}

function postText(rng: Rng, world: MicroblogWorld, long: boolean): string {
  const parts: string[] = [sentence(rng, rng.int(4, 14))];
  if (rng.chance(0.3)) parts.unshift(rng.pick(EMOJI));
  if (rng.chance(0.25)) parts.push(`#${rng.pick(HASHTAGS)}`);
  if (rng.chance(0.15)) parts.push(`@${rng.pick([...world.usersByName.keys()])}`);
  if (rng.chance(0.15)) parts.push(rng.pick(['Q&A at 5 > 4 < 6', 'R&D', 'a <b> tag & more']));
  if (rng.chance(0.2)) parts.push(`https://example.com/${rng.pick(WORDS)}/${rng.int(1, 999)}`);
  if (long) {
    while (Array.from(parts.join(' ')).length < 420) parts.push(sentence(rng, 12) + '.');
  }
  return parts.join(' ');
}

/** Builds the deterministic world for a seed: the same seed and size always give the same ids and content. */
export function generateMicroblogWorld(seed = 1, size: WorldSize = 'small'): MicroblogWorld {
  const rng = createRng(seed);
  const sizes = SIZES[size];
  const world = new MicroblogWorld(SIM_NOW);
  const named = namedUsers(world, rng);
  const extra: SimUser[] = [];
  for (let i = Object.keys(named).length; i < sizes.users; i++) {
    const shape: UserShape = rng.chance(0.1) ? 'legacy' : rng.chance(0.1) ? 'transitional' : '2026';
    const verifiedType: VerifiedType = rng.chance(0.15) ? 'blue' : 'none';
    extra.push(makeUser(world, rng, `user_${String(i).padStart(5, '0')}`, { shape, verifiedType, protected: rng.chance(0.03) }));
  }
  const everyone = [...world.users.values()];

  // Affiliates of the verified organisation.
  const affiliates = extra.slice(0, Math.min(25, extra.length));
  for (const a of affiliates) a.affiliateOf = named.org.id;
  named.blue.affiliateOf = named.org.id;

  // Follower graph: the organisation is followed by many (several pages of ~70), everyone follows a few.
  const orgFollowers = everyone.filter((u) => u.id !== named.org.id).slice(0, sizes.orgFollowers);
  for (const f of orgFollowers) world.follow(f.id, named.org.id);
  for (const u of everyone) {
    const n = rng.int(sizes.followsPerUser[0], sizes.followsPerUser[1]);
    for (let k = 0; k < n; k++) {
      // Preferential attachment: low indexes (the named accounts) collect more followers.
      const target = everyone[Math.floor(Math.pow(rng.next(), 2) * everyone.length)];
      if (target.id !== u.id && target.id !== named.org.id) world.follow(u.id, target.id);
    }
  }
  world.follow(named.blue.id, named.protected.id);

  const start = SIM_NOW - 60 * DAY;
  const step = (60 * DAY) / sizes.posts;
  const authors = everyone.filter((u) => !u.suspended);
  const posts: SimPost[] = [];
  let at = start;
  let showcaseDone = false;
  for (let i = 0; i < sizes.posts; i++) {
    at += step;
    if (!showcaseDone && at >= SHOWCASE_AT) {
      showcase(world, rng, named);
      showcaseDone = true;
    }
    const author = rng.chance(0.2) ? rng.pick([named.org, named.blue, named.plain, named.threader, named.protected, named.government]) : rng.pick(authors);
    const roll = rng.next();
    const earlier = posts.length > 0 ? rng.pick(posts) : undefined;
    let post: SimPost;
    if (roll < 0.12 && posts.length > 0) {
      const parent = posts[posts.length - 1 - rng.int(0, Math.min(posts.length - 1, 50))];
      post = world.addPost({ authorId: author.id, text: `@${world.users.get(parent.authorId)!.username} ${postText(rng, world, false)}`, at, inReplyToId: parent.id });
    } else if (roll < 0.18 && posts.length > 0) {
      post = world.addPost({ authorId: author.id, text: postText(rng, world, false), at, quotedId: earlier!.id });
    } else if (roll < 0.24 && earlier && !world.users.get(earlier.authorId)!.protected) {
      // Protected posts cannot be reposted.
      post = world.repost(author.id, earlier.id, at);
    } else {
      const mediaRoll = rng.next();
      const media: SimMedia[] = [];
      if (mediaRoll < 0.1) for (let k = rng.int(1, 4); k > 0; k--) media.push(makeMedia(world, rng, 'photo', at));
      else if (mediaRoll < 0.14) media.push(makeMedia(world, rng, 'video', at, rng.chance(0.1)));
      else if (mediaRoll < 0.16) media.push(makeMedia(world, rng, 'animated_gif', at));
      post = world.addPost({ authorId: author.id, text: postText(rng, world, rng.chance(0.05)), at, lang: rng.pick(LANGS), media });
    }
    post.likeCount = Math.floor(Math.pow(rng.next(), 3) * 5000);
    post.viewCount = post.likeCount * rng.int(5, 60) + rng.int(0, 100);
    post.bookmarkCount = Math.floor(post.likeCount / rng.int(5, 50));
    posts.push(post);
  }
  if (!showcaseDone) showcase(world, rng, named);

  // The showcase is placed in the middle of the run: restore creation order for timelines.
  world.timeline.sort((a, b) => a.createdAt - b.createdAt);
  for (const list of world.postsByAuthor.values()) list.sort((a, b) => a.createdAt - b.createdAt);

  // Pinned posts and highlights for accounts with the paid tier.
  for (const u of [named.org, named.blue, named.threader]) {
    const own = (world.postsByAuthor.get(u.id) ?? []).filter((p) => !p.repostOfId && !p.inReplyToId);
    if (own.length > 0) u.pinnedPostId = own[0].id;
    if (u.verifiedType !== 'none') u.highlightedPostIds = own.slice(0, 5).map((p) => p.id);
  }
  return world;
}

/** When the hand-placed showcase content is posted, and its fixed ids: slot k is posted k minutes later. */
export const SHOWCASE_AT = SIM_NOW - 30 * DAY;
const slotAt = (k: number) => SHOWCASE_AT + k * 60_000;
const slotId = (k: number) => snowflakeId(slotAt(k));

/** Well-known posts of every world, whatever the seed and size (examples, tests and demos name them). */
export const SIM_POSTS = {
  threadHead: slotId(0),
  editedInitial: slotId(1),
  editedLatest: slotId(2),
  deleted: slotId(3),
  long: slotId(4),
  video: slotId(5),
  streamOnly: slotId(6),
  gif: slotId(7),
  quoted: slotId(8),
  quote: slotId(9),
  quoteRepost: slotId(10),
  protectedPost: slotId(11),
  article: slotId(12),
  articleRepost: slotId(13),
  promotedReply: slotId(18),
  threadPart2: slotId(21),
  threadPart3: slotId(23),
  threadPart4: slotId(25),
} as const;

export const SIM_LISTS = { public: '1500000000000000001', private: '1500000000000000002' } as const;
export const SIM_SPACES = { running: '1vOxwjaWEbdJB', ended: '1YqKDoNqZbgJV', scheduled: '1OwxWjqXkmLxQ', canceled: '1RDGlaQQPVoJL' } as const;

/**
 * Hand-placed content every world contains: a self-thread, an edited post, a deleted post, a long post, each
 * media kind, an Article with every block and entity type, Lists, Spaces and a promoted reply.
 */
function showcase(world: MicroblogWorld, rng: Rng, named: Record<keyof typeof SIM_ACCOUNTS, SimUser>): void {
  const post = (k: number, input: Omit<Parameters<MicroblogWorld['addPost']>[0], 'at' | 'id'>) =>
    world.addPost({ ...input, at: slotAt(k), id: slotId(k) });
  // Carol's self-thread of four posts, with replies from others in between.
  const head = post(0, { authorId: named.threader.id, text: 'A thread about caches 🧵 1/4' });
  let last = head;
  for (let i = 2; i <= 4; i++) {
    post(20 + 2 * (i - 2), { authorId: named.plain.id, text: `@carol interesting point ${i}`, inReplyToId: last.id });
    last = post(21 + 2 * (i - 2), { authorId: named.threader.id, text: `@carol Part ${i}/4: ${sentence(rng, 8)}`, inReplyToId: last.id });
  }
  let k = 30;
  for (let i = 0; i < 30; i++) {
    const replier = rng.pick([named.blue, named.plain, named.government, named.legacyShape, named.transitionalShape]);
    const reply = post(k++, { authorId: replier.id, text: `@carol ${sentence(rng, 6)}`, inReplyToId: head.id });
    reply.likeCount = rng.int(0, 300);
    if (i % 3 === 0) post(k++, { authorId: named.threader.id, text: `@${replier.username} thanks!`, inReplyToId: reply.id });
  }
  post(18, { authorId: named.org.id, text: 'Try the Sim API today! https://example.com/ads', inReplyToId: head.id }).promoted = true;

  const edited = post(1, { authorId: named.blue.id, text: 'Launch day for our new API #Launch' });
  edited.likeCount = 42;
  world.editPost(edited.id, 'Launch day for our new API (edited: now with docs) #Launch https://example.com/docs', slotAt(2), slotId(2));
  world.deletePost(post(3, { authorId: named.plain.id, text: 'This post will be deleted' }).id);

  post(4, {
    authorId: named.org.id,
    text: `Release notes & highlights 🚀 ${'We shipped a faster search, better threads, and a new media pipeline. '.repeat(6)}Read more https://example.com/release`,
    media: [makeMedia(world, rng, 'photo', slotAt(4))],
  });
  post(5, { authorId: named.org.id, text: 'Video demo', media: [makeMedia(world, rng, 'video', slotAt(5))] });
  post(6, { authorId: named.org.id, text: 'Live stream only', media: [makeMedia(world, rng, 'video', slotAt(6), true)] });
  post(7, { authorId: named.blue.id, text: 'When the build passes', media: [makeMedia(world, rng, 'animated_gif', slotAt(7))] });
  const quoted = post(8, { authorId: named.plain.id, text: 'Original take 🔥' });
  const quote = post(9, { authorId: named.blue.id, text: 'Quoting this', quotedId: quoted.id });
  world.repost(named.threader.id, quote.id, slotAt(10), slotId(10));
  post(11, { authorId: named.protected.id, text: 'Only my followers see this' });

  const articlePost = post(12, { authorId: named.org.id, text: '' });
  const article = buildShowcaseArticle(world, articlePost, quoted.id, slotAt(12));
  articlePost.articleId = article.id;
  articlePost.text = `https://x.com/i/article/${article.id}`;
  articlePost.lang = 'zxx';
  world.articles.set(article.id, article);
  world.repost(named.blue.id, articlePost.id, slotAt(13), slotId(13));
  const members = [...world.users.values()].filter((u) => !u.suspended).slice(0, 45).map((u) => u.id);
  const listAt = slotAt(14);
  world.lists.set(SIM_LISTS.public, {
    id: SIM_LISTS.public, name: 'Sim builders', description: 'People building on the Sim API', ownerId: named.org.id,
    createdAt: listAt - 100 * DAY, memberIds: members, subscriberCount: 321, private: false,
  });
  world.lists.set(SIM_LISTS.private, {
    id: SIM_LISTS.private, name: 'Secret list', description: '', ownerId: named.blue.id,
    createdAt: listAt - 10 * DAY, memberIds: members.slice(0, 3), subscriberCount: 0, private: true,
  });

  const spaceAt = slotAt(15);
  const spaces = [
    { id: SIM_SPACES.running, title: 'Sim API office hours', state: 'Running' as const, startedAt: spaceAt - 3_600_000, endedAt: null, scheduledStart: null },
    { id: SIM_SPACES.ended, title: 'Release retro', state: 'Ended' as const, startedAt: spaceAt - 5 * DAY, endedAt: spaceAt - 5 * DAY + 5_400_000, scheduledStart: null },
    { id: SIM_SPACES.scheduled, title: 'Roadmap preview', state: 'NotStarted' as const, startedAt: null, endedAt: null, scheduledStart: spaceAt + 2 * DAY },
    { id: SIM_SPACES.canceled, title: 'Cancelled chat', state: 'Canceled' as const, startedAt: null, endedAt: null, scheduledStart: spaceAt + DAY },
  ];
  spaces.forEach((s, i) => {
    world.spaces.set(s.id, {
      ...s, hostIds: [named.org.id, named.blue.id], speakerIds: [named.plain.id, named.threader.id],
      participantCount: s.state === 'Running' ? 1234 : s.state === 'Ended' ? 987 : 0, lang: 'en',
      createdAt: spaceAt - 6 * DAY, recorded: s.state === 'Ended',
    });
    post(14 + i, { authorId: named.org.id, text: `Join our Space: ${s.title}` }).spaceId = s.id;
  });
}
