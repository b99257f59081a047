import { describe, expect, it } from 'vitest';
import { cursorState, INLINE_STATE_LIMIT, MAX_CURSOR_LENGTH, readCursor, resolveCursorState, signCursor } from '../../core/cursor.ts';
import type { RequestContext } from '../../core/request-context.ts';

const keyOne = { id: 'c1', key: Buffer.alloc(32, 1) };
const keyTwo = { id: 'c2', key: Buffer.alloc(32, 2) };
const withKeys = (cursorKeys: { id: string; key: Buffer }[], workspaceId = 'ws-1') =>
  ({ deps: { cursorKeys }, principal: { workspaceId } }) as unknown as RequestContext;
const ctx = withKeys([keyOne]);
const params = { query: 'cats', limit: 25, includeNsfw: false };

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return (error as { extensions?: { code?: string } }).extensions?.code;
  }
  return undefined;
}

describe('signed cursors', () => {
  it('round-trips the paging state for the same request', () => {
    const cursor = signCursor(ctx, 'searchSubforums', params, { after: 't5_abc', page: 2 });
    expect(readCursor(ctx, 'searchSubforums', { ...params, cursor })).toEqual({ after: 't5_abc', page: 2 });
  });

  it('is undefined on a first page', () => {
    expect(readCursor(ctx, 'searchSubforums', params)).toBeUndefined();
  });

  it('ignores parameter order but not parameter values', () => {
    const cursor = signCursor(ctx, 'searchSubforums', params, 1);
    expect(readCursor(ctx, 'searchSubforums', { includeNsfw: false, limit: 25, query: 'cats', cursor })).toBe(1);
    expect(codeOf(() => readCursor(ctx, 'searchSubforums', { ...params, limit: 26, cursor }))).toBe('invalid_cursor');
  });

  it('refuses a cursor from another operation', () => {
    const cursor = signCursor(ctx, 'searchSubforums', params, 1);
    expect(codeOf(() => readCursor(ctx, 'searchForumPosts', { ...params, cursor }))).toBe('invalid_cursor');
  });

  it('refuses a hand-edited cursor', () => {
    const cursor = signCursor(ctx, 'searchSubforums', params, { after: 't5_abc' });
    const [payload, mac] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), s: { after: 't5_zzz' } })).toString('base64url');
    expect(codeOf(() => readCursor(ctx, 'searchSubforums', { ...params, cursor: `${forged}.${mac}` }))).toBe('invalid_cursor');
    expect(codeOf(() => readCursor(ctx, 'searchSubforums', { ...params, cursor: 'garbage' }))).toBe('invalid_cursor');
  });

  it('refuses any other spelling of the signature, even one that decodes to the same bytes', () => {
    const cursor = signCursor(ctx, 'searchSubforums', params, 1);
    const [payload, signature] = cursor.split('.');
    const last = signature.at(-1)!;
    // The last of 43 base64url characters carries 4 spare bits: these spellings decode to the same 32 bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[(alphabet.indexOf(last) & ~3) + ((alphabet.indexOf(last) + 1) & 3)];
    for (const forged of [`${signature.slice(0, -1)}${sibling}`, `${signature.slice(0, 10)}!${signature.slice(10)}`, `${signature}=`]) {
      expect(Buffer.from(forged, 'base64url').equals(Buffer.from(signature, 'base64url'))).toBe(true);
      expect(codeOf(() => readCursor(ctx, 'searchSubforums', { ...params, cursor: `${payload}.${forged}` }))).toBe('invalid_cursor');
    }
  });

  it('refuses a cursor signed with another secret', () => {
    const other = withKeys([keyTwo]);
    const cursor = signCursor(other, 'searchSubforums', params, 1);
    expect(codeOf(() => readCursor(ctx, 'searchSubforums', { ...params, cursor }))).toBe('invalid_cursor');
  });
});

describe('cursor keys and workspaces', () => {
  it('verifies cursors signed with an older key after a new one took over (rotation)', () => {
    const cursor = signCursor(withKeys([keyOne]), 'searchSubforums', params, 1);
    expect(readCursor(withKeys([keyTwo, keyOne]), 'searchSubforums', { ...params, cursor })).toBe(1);
    expect(codeOf(() => readCursor(withKeys([keyTwo]), 'searchSubforums', { ...params, cursor }))).toBe('invalid_cursor');
  });

  it('refuses a cursor from another workspace', () => {
    const cursor = signCursor(withKeys([keyOne], 'ws-1'), 'searchSubforums', params, 1);
    expect(codeOf(() => readCursor(withKeys([keyOne], 'ws-2'), 'searchSubforums', { ...params, cursor }))).toBe('invalid_cursor');
  });
});

describe('paging state too large for a cursor', () => {
  const stored = new Map<string, unknown>();
  const storeCtx = {
    deps: {
      cursorKeys: [keyOne],
      pagingStates: {
        put: async (state: unknown) => {
          const id = crypto.randomUUID();
          stored.set(id, structuredClone(state));
          return id;
        },
        get: async (id: string) => stored.get(id),
      },
    },
  } as unknown as RequestContext;

  it('travels inside the cursor while it fits', async () => {
    const state = { q: [{ p: 't3_abc', d: 0, c: ['x1', 'x2'] }] };
    expect(await cursorState(storeCtx, state)).toEqual(state);
    expect(stored.size).toBe(0);
  });

  it('is stored when it would not fit, and the cursor stays within 4096 characters', async () => {
    const state = { q: Array.from({ length: 400 }, (_, i) => ({ p: `t1_parent${i}`, d: 3, f: `child${i}` })) };
    expect(JSON.stringify(state).length).toBeGreaterThan(INLINE_STATE_LIMIT);
    const carried = await cursorState(storeCtx, state);
    const cursor = signCursor(storeCtx, 'getForumPostComments', params, carried);
    expect(cursor.length).toBeLessThanOrEqual(MAX_CURSOR_LENGTH);
    const read = readCursor(storeCtx, 'getForumPostComments', { ...params, cursor });
    expect(await resolveCursorState(storeCtx, read)).toEqual(state);
  });

  it('is measured in UTF-8 bytes: multi-byte text under the limit in characters but not in bytes is stored', async () => {
    for (const text of ['あ'.repeat(1_200), '😀'.repeat(600), 'é'.repeat(1_500)]) {
      const state = { held: [{ id: '1', text }], then: null };
      expect(JSON.stringify(state).length).toBeLessThanOrEqual(INLINE_STATE_LIMIT);
      const cursor = signCursor(storeCtx, 'Query.microblogUserPosts', params, await cursorState(storeCtx, state));
      expect(cursor.length).toBeLessThanOrEqual(MAX_CURSOR_LENGTH);
      expect(await resolveCursorState(storeCtx, readCursor(storeCtx, 'Query.microblogUserPosts', { ...params, cursor }))).toEqual(state);
    }
  });

  it('400 invalid_cursor once the stored state is gone', async () => {
    const carried = await cursorState(storeCtx, { big: 'x'.repeat(INLINE_STATE_LIMIT) });
    stored.clear();
    await expect(resolveCursorState(storeCtx, carried)).rejects.toMatchObject({ extensions: { code: 'invalid_cursor' } });
  });
});
