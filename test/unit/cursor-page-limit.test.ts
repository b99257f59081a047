import { describe, expect, it } from 'vitest';
import { signCursor } from '../../core/cursor.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { stalled } from '../../adapters/shapes/paging-shapes.ts';
import { cursorPage, type UpstreamPage } from '../../resolvers/paging.ts';

/** cursorPage over a platform that answers more than `limit`: the cut, the held items, the stored copy. */

const info = { parentType: { name: 'Query' }, fieldName: 'things' } as never;

function harness() {
  const puts: unknown[] = [];
  const stored = new Map<string, unknown>();
  const ctx = {
    deps: {
      cursorKeys: [{ id: 'c1', key: Buffer.alloc(32, 1) }],
      pagingStates: {
        put: async (state: unknown) => {
          const id = crypto.randomUUID();
          puts.push(state);
          stored.set(id, structuredClone(state));
          return id;
        },
        get: async (id: string) => stored.get(id),
      },
    },
    principal: { workspaceId: 'ws-1' },
  } as unknown as RequestContext;
  return { ctx, puts };
}

/** Walks to the end: the items of every page, and how often the platform was asked. */
async function walk(ctx: RequestContext, limit: number, platform: (cursor: string | undefined) => UpstreamPage<{ id: string; pad: string }, string>) {
  const pages: string[][] = [];
  let calls = 0;
  let cursor: string | undefined;
  let truncated: unknown = null;
  do {
    const page = await cursorPage(ctx, info, { limit, cursor }, async (state: string | undefined) => {
      calls++;
      return platform(state);
    });
    pages.push(page.items.map((item) => item.id));
    cursor = page.nextCursor ?? undefined;
    truncated = page.truncated;
  } while (cursor && pages.length < 50);
  return { pages, calls, truncated };
}

const items = (from: number, n: number, pad = '') => Array.from({ length: n }, (_, i) => ({ id: `i${from + i}`, pad }));

describe('cursorPage: pages of at most `limit`', () => {
  it('serves what the platform sent past the cut first, then follows its cursor: each item once, in order', async () => {
    const { ctx } = harness();
    const { pages, calls } = await walk(ctx, 3, (cursor) => (cursor === undefined ? { items: items(0, 6), next: 'p2' } : { items: items(6, 4), next: null }));
    expect(pages).toEqual([['i0', 'i1', 'i2'], ['i3', 'i4', 'i5'], ['i6', 'i7', 'i8'], ['i9']]);
    expect(calls).toBe(2);
  });

  it('fewer held than `limit`: the page is filled from the platform\'s next page and cut again, each item once', async () => {
    const { ctx } = harness();
    const platform = (cursor: string | undefined) => {
      const at = cursor === undefined ? 0 : Number(cursor);
      return { items: items(at, Math.min(7, 20 - at)), next: at + 7 < 20 ? String(at + 7) : null };
    };
    const { pages, calls } = await walk(ctx, 5, platform);
    expect(pages.map((page) => page.length)).toEqual([5, 5, 5, 5]);
    expect(pages.flat()).toEqual(items(0, 20).map((item) => item.id));
    expect(calls).toBe(3);
  });

  it('a truncation the filling page reports ends the walk after what it sent', async () => {
    const { ctx } = harness();
    const { pages, truncated } = await walk(ctx, 4, (cursor) => (cursor === undefined ? { items: items(0, 6), next: 'p2' } : { items: items(6, 3), next: 'p2', truncated: stalled(9) }));
    expect(pages).toEqual([['i0', 'i1', 'i2', 'i3'], ['i4', 'i5', 'i6', 'i7'], ['i8']]);
    expect(truncated).toMatchObject({ reason: 'platform_stalled', seen: 9 });
  });

  it('stores held items once for all the pages they fill', async () => {
    const { ctx, puts } = harness();
    const { pages } = await walk(ctx, 2, () => ({ items: items(0, 11), next: null }));
    expect(pages.flat()).toEqual(items(0, 11).map((item) => item.id));
    expect(pages.every((page) => page.length <= 2)).toBe(true);
    expect(puts).toHaveLength(1);
  });

  it('held items never travel in the cursor, however few: it names their stored copy', async () => {
    const { ctx, puts } = harness();
    const page = await cursorPage(ctx, info, { limit: 1 }, async () => ({ items: items(0, 3, 'unpaid text'), next: null }));
    expect(puts).toEqual([items(1, 2, 'unpaid text')]);
    const payload = Buffer.from(page.nextCursor!.split('.')[0], 'base64url').toString('utf8');
    expect(payload).not.toContain('unpaid text');
    expect(payload).not.toContain('i1');
  });

  it('a cursor carrying held items inline (as issued before they were always stored) is 400 invalid_cursor', async () => {
    const { ctx } = harness();
    const cursor = signCursor(ctx, 'Query.things', { limit: 1 }, { held: items(1, 2), at: 0, then: null });
    await expect(cursorPage(ctx, info, { limit: 1, cursor }, async () => ({ items: [], next: null }))).rejects.toMatchObject({ extensions: { code: 'invalid_cursor' } });
  });

  it("a platform's truncation is reported on the page that serves the last held item", async () => {
    const { ctx } = harness();
    const { pages, truncated } = await walk(ctx, 4, () => ({ items: items(0, 6), next: 'again', truncated: stalled(6) }));
    expect(pages).toEqual([['i0', 'i1', 'i2', 'i3'], ['i4', 'i5']]);
    expect(truncated).toMatchObject({ reason: 'platform_stalled', seen: 6 });
  });
});
