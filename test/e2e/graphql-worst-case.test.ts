import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_POSTS } from '../../adapters/sim/microblog/microblog-world-generator.ts';
import { WORST_CASE_CEILING_CREDITS } from '../../schema/catalogue/worst-case.ts';
import { charged } from '../support/assertions.ts';
import { usageOf } from '../support/billing.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { forumOf, postIds } from './forum-e2e-support.ts';
import { microblogOf } from './microblog-e2e-support.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService();
  ({ key } = await svc.newKey({ scopes: ['read:social'] }));
});
afterAll(async () => {
  await svc?.close();
});

const requests = () => microblogOf(svc).client.stats.requests + forumOf(svc).client.stats.requests;

describe('the worst case of a GraphQL request is known before it runs', () => {
  it('a request whose worst case exceeds the ceiling is a 400 naming the costliest path: nothing runs, nothing is charged', async () => {
    const before = await usageOf(svc, key);
    const upstream = requests();
    const res = await svc.graphql('{ found: microblogPostSearch(query: "api", limit: 100) { items { id authorProfile { followers { items { id } } } } } }', {}, key);
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    const [error] = res.body.errors;
    expect(error.extensions.code).toBe('query_too_costly');
    // 1 + 100 posts; 100 authors at 2; 100 follower pages of at most 100 accounts at 1.
    expect(error.extensions.details).toMatchObject({ path: 'found.items.authorProfile.followers', worstCase: 101 + 200 + 10_000, ceiling: WORST_CASE_CEILING_CREDITS });
    expect(error.message).toContain("'found.items.authorProfile.followers'");
    expect(charged(res)).toBe(0);
    expect(res.body.extensions.credits).toMatchObject({ charged: 0, worstCase: 10_301 });
    expect(requests()).toBe(upstream);
    expect((await usageOf(svc, key)).balance).toBe(before.balance);
  });

  it('a request within the ceiling runs, and reports its worst case beside what it was charged', async () => {
    const res = await svc.graphql(
      `query($id: String!) { microblogPost(id: $id) { id authorProfile { username posts(limit: 5) { items { id } } } } }`,
      { id: SIM_POSTS.threadHead },
      key,
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const posts = res.body.data.microblogPost.authorProfile.posts.items.length;
    expect(posts).toBeGreaterThan(0);
    expect(res.body.extensions.credits.worstCase).toBe(1 + 1 + 2 + 5);
    expect(charged(res)).toBe(1 + 1 + 2 + posts);
    expect(res.body.extensions.credits.charged).toBe(charged(res));
  });

  it('REST calls are held and priced as their root operation alone', async () => {
    const res = await svc.request('POST', '/v1/forum/search', { key, body: { query: 'forum', limit: 5 } });
    expect(res.status).toBe(200);
    expect(charged(res)).toBe(1 + 3 * res.body.data.length);
  });
});

describe('identical upstream fetches run once per request', () => {
  it('two root fields asking for the same post fetch it once, and each is billed', async () => {
    const upstream = microblogOf(svc).client.stats.requests;
    const res = await svc.graphql(`query($id: String!) { a: microblogPost(id: $id) { id } b: microblogPost(id: $id) { text } }`, { id: SIM_POSTS.quote }, key);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.a.id).toBe(SIM_POSTS.quote);
    expect(microblogOf(svc).client.stats.requests - upstream).toBe(1);
    expect(charged(res)).toBe(2 * (1 + 1));
  });

  it('two walks reaching the same community page fetch it once', async () => {
    const upstream = forumOf(svc).client.stats.requests;
    const res = await svc.graphql('{ a: subforum(name: "programming") { name posts(query: "forum", limit: 3) { items { id } } } b: subforum(name: "programming") { posts(query: "forum", limit: 3) { items { id } } } }', {}, key);
    expect(res.body.errors).toBeUndefined();
    const found = res.body.data.a.posts.items.length;
    expect(res.body.data.b.posts.items).toHaveLength(found);
    // One community read and one search, though each appears twice.
    expect(forumOf(svc).client.stats.requests - upstream).toBe(2);
    expect(charged(res)).toBe(2 * (1 + 1 + 3 * found));
  });
});

describe("the policy reads variables with the operation's defaults applied", () => {
  const FOLLOWERS = (limit: string) => `found: microblogPostSearch(query: "api", limit: ${limit}) { items { authorProfile { followers { items { id } } } } }`;
  const dryRun = (query: string, variables: Record<string, unknown> = {}) =>
    svc.request('POST', '/graphql', { key, body: { query, variables }, headers: { 'x-dry-run': 'true' } });

  it('a limit given by a variable default is priced as the same limit written inline: refused above the ceiling', async () => {
    const inline = await svc.graphql(`{ ${FOLLOWERS('100')} }`, {}, key);
    const upstream = requests();
    const res = await svc.graphql(`query Q($l: Int = 100) { ${FOLLOWERS('$l')} }`, {}, key);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('query_too_costly');
    expect(res.body.errors[0].extensions.details).toEqual(inline.body.errors[0].extensions.details);
    expect(res.body.extensions.credits).toMatchObject({ charged: 0, worstCase: 10_301 });
    expect(charged(res)).toBe(0);
    expect(requests()).toBe(upstream);
  });

  it("the reviewer's two defaults of 100 give the inline worst case", async () => {
    const walk = (l: string, m: string) => `found: microblogPostSearch(query: "api", limit: ${l}) { items { authorProfile { posts(limit: ${m}) { items { authorProfile { about { id } } } } } } }`;
    const inline = await svc.graphql(`{ ${walk('100', '100')} }`, {}, key);
    const res = await svc.graphql(`query Q($l: Int = 100, $m: Int = 100) { ${walk('$l', '$m')} }`, {}, key);
    expect(inline.body.errors[0].extensions.code).toBe('query_too_costly');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('query_too_costly');
    expect(res.body.extensions.credits.worstCase).toBe(inline.body.extensions.credits.worstCase);
    expect(charged(res)).toBe(0);
  });

  it('a dry run reports the worst case of the defaults', async () => {
    const inline = await dryRun(`{ ${FOLLOWERS('10')} }`);
    const res = await dryRun(`query Q($l: Int = 10) { ${FOLLOWERS('$l')} }`);
    expect(res.status).toBe(200);
    expect(res.body.extensions.estimate.worstCaseCredits).toBe(1 + 10 + 10 * 2 + 10 * 100);
    expect(res.body.extensions.estimate).toEqual(inline.body.extensions.estimate);
  });

  it('a lookup list given by a default is priced as the same list sent in variables', async () => {
    const query = (declared: string) => `query Q($p: [String!]${declared}) { lookupForum(posts: $p) { posts { comments(limit: 100) { items { id } } } } }`;
    const ids = postIds(4);
    const sent = await dryRun(query(''), { p: ids });
    const res = await dryRun(query(` = ${JSON.stringify(ids)}`));
    expect(sent.body.extensions.estimate.worstCaseCredits).toBeGreaterThan(4 * 100);
    expect(res.body.extensions.estimate).toEqual(sent.body.extensions.estimate);
  });

  it('a root field that @include leaves out by a defaulted variable is neither scope-checked nor priced', async () => {
    const { key: forumOnly } = await svc.newKey({ scopes: ['read:forum'] });
    const res = await svc.graphql('query Q($v: Boolean = false) { microblogUser(user: "alice") @include(if: $v) { id } forumPost(id: "1a00005") { id } }', {}, forumOnly);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({ forumPost: { id: '1a00005' } });
    const skipped = await svc.graphql('query Q($v: Boolean = true) { found: microblogPostSearch(query: "api", limit: 100) @skip(if: $v) { items { authorProfile { followers { items { id } } } } } }', {}, key);
    expect(skipped.status).toBe(200);
    expect(skipped.body.data).toEqual({});
    expect(charged(skipped)).toBe(0);
  });
});
