import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../schema/catalogue/index.ts';
import { reservationFor, rootFieldCost, WORST_CASE_CEILING_CREDITS } from '../../schema/catalogue/worst-case.ts';
import { refuseAboveCeiling, worstCaseCredits } from '../../schema/pipeline/worst-case-credits.ts';
import { schema } from '../../schema/schema.ts';

const worst = (query: string, variables: Record<string, unknown> = {}) => worstCaseCredits(schema, parse(query), variables);

describe('worst-case credits of a GraphQL request, before it runs', () => {
  it('a root field costs its reservation: minimum plus its largest result within the requested limit', () => {
    expect(worst('{ forumPost(id: "1a") { id } }').credits).toBe(1 + 3);
    expect(worst('{ searchForumPosts(query: "x", limit: 10) { items { id } } }').credits).toBe(1 + 3 * 10);
    expect(worst('query($n: Int) { searchForumPosts(query: "x", limit: $n) { items { id } } }', { n: 40 }).credits).toBe(1 + 3 * 40);
    // Without a limit, the default (25).
    expect(worst('{ searchForumPosts(query: "x") { items { id } } }').credits).toBe(1 + 3 * 25);
    // Free operations cost nothing.
    expect(worst('{ whoami { keyId } }').credits).toBe(0);
  });

  it('an edge costs its bound times the most parents it is walked from', () => {
    const result = worst(`{ microblogPostSearch(query: "x", limit: 50) { items { id authorProfile { id posts(limit: 10) { items { id } } } } } }`);
    // 1 + 50 posts; 50 author profiles at 2; 50 × 10 posts at 1.
    expect(result.credits).toBe(1 + 50 + 50 * 2 + 50 * 10);
    expect(result.fields).toEqual([
      { path: 'microblogPostSearch.items.authorProfile.posts', resolutions: 50, credits: 500 },
      { path: 'microblogPostSearch.items.authorProfile', resolutions: 50, credits: 100 },
      { path: 'microblogPostSearch', resolutions: 1, credits: 51 },
    ]);
  });

  it("an embedded post's edges count once per post that can carry it", () => {
    const result = worst('{ microblogPosts(ids: "1,2,3") { items { authorProfile { id } quotedPost { authorProfile { id } } repostedPost { authorProfile { id } } } } }');
    expect(result.credits).toBe(1 + 3 + 3 * 3 * 2);
  });

  it("a lookup's members are bounded by what each of them asks for", () => {
    const result = worst('{ lookupForum(posts: ["a", "b"], comments: ["c"], subforums: ["d"]) { posts { community { name } } comments { post { id } parent { id } } } }');
    // 1 + 2 posts × 3 + 1 comment × 3 + 1 community; 2 communities; 1 post (3) and 1 parent comment (3).
    expect(result.credits).toBe(1 + 6 + 3 + 1 + 2 * 1 + 3 + 3);
    // Members are bounded by their field, whatever alias the request gives them.
    const aliased = worst('{ lookupForum(posts: ["a", "b"], comments: ["c"]) { p: posts { community { name } } posts: comments { post { id } } } }');
    expect(aliased.credits).toBe(1 + 6 + 3 + 2 * 1 + 1 * 3);
  });

  it('fields merged by response key are priced once; skipped fields and fragments are honoured', () => {
    expect(worst('{ a: forumPost(id: "1") { id } a: forumPost(id: "1") { title } }').credits).toBe(4);
    expect(worst('{ a: forumPost(id: "1") { id } b: forumPost(id: "1") { title } }').byRootField).toEqual({ a: 4, b: 4 });
    expect(worst('query($no: Boolean!) { a: forumPost(id: "1") @include(if: $no) { id } b: subforum(name: "abc") { name } }', { no: false }).credits).toBe(2);
    const viaFragment = worst('query { microblogUser(user: "x") { ...P } } fragment P on MicroblogProfile { followers { items { id } } }');
    expect(viaFragment.credits).toBe(1 + 2 + 100);
  });

  it('one parsed document priced again with other variables: limits and skipped fields follow the variables', () => {
    const limited = parse('query($n: Int) { microblogUser(user: "x") { posts(limit: $n) { items { id } } } }');
    expect(worstCaseCredits(schema, limited, { n: 5 }).credits).toBe(3 + 5);
    expect(worstCaseCredits(schema, limited, { n: 50 }).credits).toBe(3 + 50);
    const skipped = parse('query($walk: Boolean!) { microblogUser(user: "x") { followers @include(if: $walk) { items { id } } } }');
    expect(worstCaseCredits(schema, skipped, { walk: true }).credits).toBe(3 + 100);
    expect(worstCaseCredits(schema, skipped, { walk: false }).credits).toBe(3);
    expect(worstCaseCredits(schema, skipped, { walk: true }).credits).toBe(3 + 100);
  });

  it('refuses a request above the ceiling, naming the costliest path', () => {
    const costly = worst('{ microblogPostSearch(query: "x", limit: 100) { items { authorProfile { followers { items { id } } } } } }');
    expect(costly.credits).toBe(101 + 200 + 100 * 100);
    expect(costly.credits).toBeGreaterThan(WORST_CASE_CEILING_CREDITS);
    let refusal: unknown;
    try {
      refuseAboveCeiling(costly);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({
      extensions: { code: 'query_too_costly', http: { status: 400 }, details: { path: 'microblogPostSearch.items.authorProfile.followers', worstCase: 10_301, ceiling: 5_000 } },
    });
    expect(() => refuseAboveCeiling(worst('{ microblogPostSearch(query: "x", limit: 10) { items { authorProfile { followers { items { id } } } } } }'))).not.toThrow();
  });

  it('a root field is priced without its arguments only when no argument can change its price', () => {
    const fixed = OPERATIONS.filter((op) => rootFieldCost(op).fixed);
    expect(fixed.map((op) => op.operationId)).toContain('getForumPost');
    // One operation bounded by each input that can bound a request: its limit, its ids, its own unitsAsked.
    for (const id of ['searchForumPosts', 'getMicroblogPosts', 'lookupForum']) {
      expect({ id, fixed: rootFieldCost(OPERATIONS.find((op) => op.operationId === id)!).fixed }).toEqual({ id, fixed: undefined });
    }
    for (const op of fixed) {
      const example = op.example as Record<string, unknown>;
      // Only the operation's own inputs: GraphQL coerces no other argument.
      for (const args of [{}, example]) {
        expect({ op: op.operationId, credits: rootFieldCost(op).fixed!.credits }).toEqual({ op: op.operationId, credits: op.billing.minimumCredits === 0 && !op.billing.returns ? 0 : reservationFor(op, args) });
      }
    }
  });
});
