import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMicroblogClient, type MicroblogClient } from '../../../adapters/microblog/microblog-client.ts';
import { threadOf } from '../../../adapters/microblog/microblog-conversation.ts';
import { createMicroblogLoaders } from '../../../adapters/microblog/microblog-loaders.ts';
import { startMicroblogSim, type MicroblogSim } from '../../../adapters/sim/microblog/microblog-sim.ts';
import { SIM_ACCOUNTS } from '../../../adapters/sim/microblog/microblog-world-generator.ts';
import {
  AboutDetailsShape,
  ArticleShape,
  EditHistoryShape,
  MicroblogListShape,
  MicroblogPostShape,
  MicroblogProfileShape,
  MicroblogSpaceShape,
} from '../../../adapters/shapes/microblog-shapes.ts';
import { upstreamFailure } from '../../support/upstream-errors.ts';

let sim: MicroblogSim;
let client: MicroblogClient;
const userId = (name: string) => sim.world.userByName(name)!.id;
// A fresh loader set per read, as each request gets its own: nothing is remembered between reads.
const getPost = (id: string) => createMicroblogLoaders(client).post(id);
const getEditHistory = (id: string) => createMicroblogLoaders(client).editHistory(id);
const getThread = async (id: string) => threadOf(id, await client.getConversation(id));

async function control(method: string, path: string, body?: unknown) {
  const res = await fetch(`${sim.url}/__sim${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  sim = await startMicroblogSim({ seed: 3 });
  client = createMicroblogClient({ baseUrl: sim.url, timeoutMs: 500, maxRetries: 2, retryBaseMs: 5, retryCapMs: 20 });
});
afterAll(async () => {
  await client.close();
  await sim.close();
});

describe('microblog client against the simulated platform over HTTP', () => {
  it('reads profiles by name, by id and in bulk, and about details', async () => {
    const org = MicroblogProfileShape.parse(await client.getUserByUsername(SIM_ACCOUNTS.org));
    expect(org.username).toBe(SIM_ACCOUNTS.org);
    expect((await client.getUserById(org.id)).username).toBe(SIM_ACCOUNTS.org);
    const about = AboutDetailsShape.parse(await client.getAbout(SIM_ACCOUNTS.org));
    expect(about).toMatchObject({ id: org.id, profileImageShape: 'Square', verified: true });
    const bulk = await client.getUsersByIds([org.id, userId(SIM_ACCOUNTS.suspended), '999']);
    expect(bulk.get(org.id)?.username).toBe(SIM_ACCOUNTS.org);
    expect(bulk.get(userId(SIM_ACCOUNTS.suspended))).toBeNull();
    expect(bulk.get('999')).toBeNull();
    expect((await client.getUserByUsername(SIM_ACCOUNTS.protected)).protected).toBe(true);
  });

  it('gives typed errors: unknown account not_found, suspended not_public(suspended)', async () => {
    expect((await upstreamFailure(client.getUserByUsername('nobody_here'))).kind).toBe('not_found');
    const suspended = await upstreamFailure(client.getUserByUsername(SIM_ACCOUNTS.suspended));
    expect([suspended.kind, suspended.reason]).toEqual(['not_public', 'suspended']);
    expect((await upstreamFailure(getPost('1'))).kind).toBe('not_found');
    expect((await upstreamFailure(getThread('1'))).kind).toBe('not_found');
    const protectedPost = sim.world.postsByAuthor.get(userId(SIM_ACCOUNTS.protected))![0];
    const hidden = await upstreamFailure(getPost(protectedPost.id));
    expect([hidden.kind, hidden.reason]).toEqual(['not_public', 'protected']);
  });

  it('pages followers ~70 at a time until nextCursor is null, with no duplicates', async () => {
    const org = userId(SIM_ACCOUNTS.org);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await client.getUserList(org, 'followers', { cursor });
      seen.push(...page.items.map((p) => p.id));
      if (!page.next) break;
      cursor = page.next;
    }
    expect(seen.length).toBe(sim.world.followers.get(org)!.filter((id) => !sim.world.users.get(id)!.suspended).length);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('reads timelines, highlights, affiliates, lists, spaces, reposters, quotes and search', async () => {
    const org = userId(SIM_ACCOUNTS.org);
    const posts = await client.getUserTimeline(org, 'posts', { count: 20 });
    expect(posts.items).toHaveLength(20);
    expect(posts.pinned?.id).toBe(sim.world.users.get(org)!.pinnedPostId);
    for (const p of posts.items) MicroblogPostShape.parse(p);
    expect((await client.getUserTimeline(org, 'media', {})).items.every((p) => p.media.length > 0)).toBe(true);
    expect((await client.getUserTimeline(org, 'highlights', {})).items.length).toBeGreaterThan(0);
    expect((await client.getUserList(org, 'affiliates', { count: 100 })).items.length).toBe(26);
    const list = MicroblogListShape.parse(await client.getList('1500000000000000001'));
    expect(list).toMatchObject({ memberCount: 45, subscriberCount: 321, ownerId: org, url: 'https://x.com/i/lists/1500000000000000001' });
    expect((await client.getListMembers(list.id, { count: 100 })).items.length).toBeGreaterThan(40);
    expect((await client.getListPosts(list.id, { count: 10 })).items).toHaveLength(10);
    const privateList = await upstreamFailure(client.getList('1500000000000000002'));
    expect([privateList.kind, privateList.reason]).toEqual(['not_public', 'private']);
    expect((await upstreamFailure(client.getList('42'))).kind).toBe('not_found');
    const space = MicroblogSpaceShape.parse(await client.getSpace('1YqKDoNqZbgJV'));
    expect(space).toMatchObject({ state: 'Ended', title: 'Release retro', participantCount: 987, isRecorded: true });
    expect(space.hosts.map((h) => h.username)).toEqual([SIM_ACCOUNTS.org, SIM_ACCOUNTS.blue]);
    expect((await upstreamFailure(client.getSpace('1nope'))).kind).toBe('not_found');
    const quoted = sim.world.timeline.find((p) => p.text === 'Original take 🔥')!;
    const quotes = await client.getQuotes(quoted.id);
    expect(quotes.items.map((p) => p.quotedPost?.id)).toEqual([quoted.id]);
    const quote = quotes.items[0];
    const reposters = await client.getReposters(quote.id);
    expect(reposters.items.map((u) => u.username)).toEqual([SIM_ACCOUNTS.threader]);
    const found = await client.searchPosts(`from:${SIM_ACCOUNTS.blue} "new API" #Launch`, 'Latest');
    expect(found.items.map((p) => p.text)).toEqual(['Launch day for our new API (edited: now with docs) #Launch https://example.com/docs']);
    expect((await client.searchUsers(SIM_ACCOUNTS.blue)).items[0].username).toBe(SIM_ACCOUNTS.blue);
  });

  it('assembles the author thread and the replies (promoted post and the post itself left out)', async () => {
    const head = sim.world.timeline.find((p) => p.text.startsWith('A thread about caches'))!;
    const thread = await getThread(head.id);
    expect(thread.map((p) => p.text.slice(0, 16))).toEqual(['A thread about c', '@carol Part 2/4:', '@carol Part 3/4:', '@carol Part 4/4:']);
    // Any post of the thread gives the same thread.
    expect((await getThread(thread[2].id)).map((p) => p.id)).toEqual(thread.map((p) => p.id));
    const all: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await client.getReplies(head.id, { cursor, rankingMode: 'Recency' });
      all.push(...page.items.map((p) => p.id));
      if (!page.next) break;
      cursor = page.next;
    }
    const ad = sim.world.repliesTo.get(head.id)!.find((p) => p.promoted)!;
    expect(all).not.toContain(ad.id);
    expect(all).not.toContain(head.id);
    expect(all.length).toBeGreaterThanOrEqual(31);
  });

  it('reads edit history: every version, oldest first', async () => {
    const latest = sim.world.timeline.find((p) => p.text.startsWith('Launch day for our new API (edited'))!;
    const history = EditHistoryShape.parse(await getEditHistory(latest.id));
    expect(history.editPostIds).toHaveLength(2);
    expect(history.latestPostId).toBe(latest.id);
    expect(history.versions.map((v) => v.text)).toEqual(['Launch day for our new API #Launch', latest.text]);
  });

  it('reads the full Article with blocks, text and markdown', async () => {
    const post = [...sim.world.posts.values()].find((p) => p.articleId && !p.repostOfId)!;
    const article = ArticleShape.parse(await client.getArticle(post.id));
    expect(article.postId).toBe(post.id);
    expect(new Set(article.blocks!.map((b) => b.type))).toEqual(
      new Set(['header-one', 'header-two', 'header-three', 'unstyled', 'ordered-list-item', 'unordered-list-item', 'blockquote', 'code-block', 'atomic']),
    );
    expect(new Set(article.blocks!.flatMap((b) => b.entities.map((e) => e.type)))).toEqual(new Set(['TWEMOJI', 'LINK', 'DIVIDER', 'MARKDOWN', 'MEDIA', 'POST']));
    expect(article.markdown).toBe(EXPECTED_MARKDOWN(article));
    expect(await client.getArticle(sim.world.timeline.find((p) => p.text === 'Original take 🔥')!.id)).toBeNull();
  });

  it('content control: add, edit, repost and delete at a given time, over HTTP', async () => {
    const at = Date.UTC(2026, 7, 1, 13, 0, 0);
    const added = await control('POST', '/microblog/posts', { username: SIM_ACCOUNTS.plain, text: 'Fresh from the control route', at });
    expect(added.status).toBe(201);
    const post = await getPost(added.body.id);
    expect([post.text, post.createdAt]).toEqual(['Fresh from the control route', new Date(at).toISOString()]);
    const edited = await control('POST', `/microblog/posts/${added.body.id}/edit`, { text: 'Fresh, edited', at: at + 1000 });
    expect((await getEditHistory(added.body.id)).versions.map((v) => v.text)).toEqual(['Fresh from the control route', 'Fresh, edited']);
    const repost = await control('POST', `/microblog/posts/${edited.body.id}/repost`, { username: SIM_ACCOUNTS.blue, at: at + 2000 });
    expect((await getPost(repost.body.id)).repostedPost?.text).toBe('Fresh, edited');
    await control('DELETE', `/microblog/posts/${edited.body.id}`);
    expect((await client.getPostsByIds([edited.body.id])).get(edited.body.id)?.post).toBeNull();
  });
});

describe('batching: 100 ids in one round trip', () => {
  it('posts and users through the per-request loaders', async () => {
    const loaders = createMicroblogLoaders(client);
    const postIds = sim.world.timeline.slice(0, 100).map((p) => p.id);
    const before = client.stats.requests;
    const posts = await Promise.all(postIds.map((id) => loaders.postsById.load(id)));
    expect(client.stats.requests - before).toBe(1);
    expect(posts.filter((p) => p !== null).length).toBeGreaterThan(80);
    const ids = [...sim.world.users.keys()].slice(0, 80);
    const beforeUsers = client.stats.requests;
    const users = await loaders.usersById.loadMany(ids);
    expect(client.stats.requests - beforeUsers).toBe(1);
    expect(users).toHaveLength(80);
  });
});

describe('fault injection gives typed errors', () => {
  it('5xx after retries → unavailable with status', async () => {
    sim.faults.add({ route: '/i/api/graphql/', kind: 'status', status: 503, count: 3 });
    const error = await upstreamFailure(client.getUserByUsername(SIM_ACCOUNTS.org));
    expect([error.kind, error.status]).toEqual(['unavailable', 503]);
  });

  it('a transient 503 is retried and succeeds', async () => {
    sim.faults.add({ route: '/i/api/graphql/', kind: 'status', status: 503, count: 1 });
    expect((await client.getUserByUsername(SIM_ACCOUNTS.org)).username).toBe(SIM_ACCOUNTS.org);
  });

  it('429 with Retry-After is honoured, then exhausted → unavailable', async () => {
    sim.faults.add({ route: '/\\/UserByScreenName$/', kind: 'rate_limit', retryAfterSeconds: 0, count: 1 });
    expect((await client.getUserByUsername(SIM_ACCOUNTS.org)).username).toBe(SIM_ACCOUNTS.org);
    sim.faults.add({ route: '/\\/UserByScreenName$/', kind: 'rate_limit', retryAfterSeconds: 0, count: 3 });
    const error = await upstreamFailure(client.getUserByUsername(SIM_ACCOUNTS.org));
    expect([error.kind, error.status]).toEqual(['unavailable', 429]);
  });

  it('timeouts and connection resets → unavailable', async () => {
    sim.faults.add({ route: '/i/api/graphql/', kind: 'timeout', count: 3 });
    expect((await upstreamFailure(client.getUserByUsername(SIM_ACCOUNTS.org))).kind).toBe('unavailable');
    sim.faults.add({ route: '/i/api/graphql/', kind: 'reset', count: 3 });
    expect((await upstreamFailure(client.getPostsByIds(['1']))).kind).toBe('unavailable');
    sim.faults.clear();
    expect((await client.getUserByUsername(SIM_ACCOUNTS.org)).username).toBe(SIM_ACCOUNTS.org);
  });
});

function EXPECTED_MARKDOWN(article: { media: Array<{ url: string | null }>; blocks: Array<{ entities: Array<{ postId: string | null }> }> | null }): string {
  const [image, clip] = article.media;
  const embedded = article.blocks!.flatMap((b) => b.entities).find((e) => e.postId)!.postId;
  return [
    '# Building on the Sim API',
    '🚀 **Bold start**, *italic middle* and ~~struck end~~.',
    'Read the [guide](https://example.com/guide) or visit [example.org/docs](https://example.org/docs) for more.',
    '## Setup',
    '1. Create a key\n   1. Scopes: read only\n2. Call the API\n- Fast\n   - Nested detail',
    '### Quote and code',
    '> Ship small, ship often.',
    '```\nconst client = createClient();\nawait client.search("cats");\n```',
    '---',
    '```bash\ncurl https://api.example.com\n```',
    `![](${image.url})`,
    `[video](${clip.url})`,
    `https://x.com/i/status/${embedded}`,
    'Thanks for reading & see you soon \\<3',
  ].join('\n\n');
}
