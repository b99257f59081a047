import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ServiceError } from './error-catalogue.ts';
import type { RequestContext } from './request-context.ts';

/**
 * Opaque, signed cursors bound to the exact request they came from.
 *
 * A cursor is `<payload>.<mac>`: the payload (base64url JSON) names the operation, a digest of every other
 * parameter of the request and of the caller's workspace, the paging state (an upstream token, a resolved
 * account…) and the id of the key that signed it; the MAC is HMAC-SHA256 over the payload with that key (the
 * cursor keys, not any other secret). A hand-edited cursor fails the MAC; a cursor sent with another operation,
 * changed parameters or from another workspace fails the binding. All are 400 `invalid_cursor`, never a silent
 * restart at page one. Keys rotate: the newest signs, every configured one verifies, so cursors in flight survive.
 */

export const MAX_CURSOR_LENGTH = 4096;

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function bindingOf(ctx: RequestContext, operationId: string, params: Record<string, unknown>): string {
  const { cursor: _cursor, ...rest } = params;
  const workspace = ctx.principal?.workspaceId ?? '';
  return createHash('sha256').update(`${operationId}\n${workspace}\n${canonical(rest)}`).digest('base64url').slice(0, 22);
}

function mac(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest();
}

/** The `nextCursor` for a page: binds `state` to this operation and these parameters (the cursor itself excluded). */
export function signCursor(ctx: RequestContext, operationId: string, params: Record<string, unknown>, state: unknown): string {
  const [key] = ctx.deps.cursorKeys;
  const payload = Buffer.from(JSON.stringify({ k: key.id, o: operationId, b: bindingOf(ctx, operationId, params), s: state })).toString('base64url');
  const cursor = `${payload}.${mac(key.key, payload).toString('base64url')}`;
  if (cursor.length > MAX_CURSOR_LENGTH) throw new Error(`cursor for ${operationId} exceeds ${MAX_CURSOR_LENGTH} chars`);
  return cursor;
}

function invalid(message: string): ServiceError {
  return new ServiceError('invalid_cursor', { message, details: { field: 'cursor' } });
}

/** The paging state of `params.cursor`, or undefined on a first page; 400 for a tampered or foreign cursor. */
export function readCursor<State>(ctx: RequestContext, operationId: string, params: Record<string, unknown>): State | undefined {
  const cursor = params.cursor;
  if (cursor === undefined || cursor === null) return undefined;
  if (typeof cursor !== 'string') throw invalid('The cursor must be a string taken from meta.nextCursor.');
  const dot = cursor.indexOf('.');
  if (dot <= 0) throw invalid('The cursor is malformed: send meta.nextCursor back unchanged.');
  const payload = cursor.slice(0, dot);
  const altered = () => invalid('The cursor was altered: send meta.nextCursor back unchanged.');
  let decoded: { k?: string; o: string; b: string; s: State };
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof decoded;
  } catch {
    throw altered();
  }
  // The key the payload names is only a hint: the MAC below decides, and an unknown key is an altered cursor.
  const key = ctx.deps.cursorKeys.find((candidate) => candidate.id === decoded.k);
  if (!key) throw altered();
  // Compared as text: decoding base64url skips stray characters and ignores the last character's spare bits,
  // so several spellings would decode to the same MAC; only the exact one the service issued is accepted.
  const given = Buffer.from(cursor.slice(dot + 1));
  const expected = Buffer.from(mac(key.key, payload).toString('base64url'));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw altered();
  if (decoded.o !== operationId || decoded.b !== bindingOf(ctx, operationId, params)) {
    throw invalid('The cursor belongs to another request: repeat the exact request it came from (same path and parameters).');
  }
  return decoded.s;
}

/**
 * Paging state up to this many bytes of UTF-8 JSON travels inside the cursor; larger state is stored and the cursor
 * names it. Bytes, not characters: the cursor's 4096 characters are base64 of the UTF-8 payload (4 per 3 bytes), so
 * 2800 bytes of state leave room for the envelope and the MAC however multi-byte the text it holds.
 */
export const INLINE_STATE_LIMIT = 2_800;

interface StoredStateRef {
  $stored: string;
}

function isStoredRef(state: unknown): state is StoredStateRef {
  return typeof state === 'object' && state !== null && typeof (state as StoredStateRef).$stored === 'string' && Object.keys(state).length === 1;
}

/**
 * The state to sign into a cursor: itself when it fits, otherwise a reference to a stored copy, so a cursor
 * never outgrows its 4096 characters. The reference is as bound and as tamper-proof as any other state.
 */
export async function cursorState(ctx: RequestContext, state: unknown): Promise<unknown> {
  if (Buffer.byteLength(JSON.stringify(state)) <= INLINE_STATE_LIMIT) return state;
  return storedState(ctx, state);
}

/**
 * A reference to a stored copy of `state`, whatever its size: for state a client must not read from its cursor
 * (a cursor is signed, not encrypted), such as items not yet served or paid for.
 */
export async function storedState(ctx: RequestContext, state: unknown): Promise<unknown> {
  return { $stored: await ctx.deps.pagingStates.put(state) } satisfies StoredStateRef;
}

/** The paging state a cursor carried, fetching a stored copy when it names one; 400 once that has expired. */
export async function resolveCursorState<State>(ctx: RequestContext, state: State | undefined): Promise<State | undefined> {
  return isStoredRef(state) ? resolveStoredState<State>(ctx, state) : state;
}

/**
 * The state a `storedState` reference names; 400 once it has expired, and for state carried inline where only a
 * stored copy is accepted (a cursor issued before such state was always stored, which would serve it for ever).
 */
export async function resolveStoredState<State>(ctx: RequestContext, state: unknown): Promise<State> {
  const stored = isStoredRef(state) ? await ctx.deps.pagingStates.get(state.$stored) : undefined;
  if (stored === undefined) throw invalid('The cursor has expired: start again from the first page.');
  return stored as State;
}
