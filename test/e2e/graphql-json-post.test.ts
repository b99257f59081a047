import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * The listener answers the common GraphQL request (POST, JSON, no `Origin`) without yoga's Fetch layer. The same
 * request with an `Origin` goes through yoga whole; apart from the CORS headers both must answer the same status,
 * headers and bytes. Every billed request is sent once per path from two fresh workspaces, so balances match too.
 */
let svc: TestService;
const NOW = new Date('2026-03-04T05:06:07.000Z');

beforeAll(async () => {
  svc = await startTestService({ now: () => NOW });
});
afterAll(async () => {
  await svc?.close();
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Headers only the CORS policy adds (the request carried `Origin`), or that name the moment of sending. */
const PATH_HEADERS = /^(access-control-|vary$|date$)/;

let sent = 0;
async function post(body: string, headers: Record<string, string>, key: string | undefined, origin: boolean): Promise<Answer> {
  const requestId = `json-post-${String(++sent).padStart(4, '0')}`;
  const response = await fetch(`${svc.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...headers, ...(key ? { authorization: `Bearer ${key}` } : {}), ...(origin ? { origin: 'https://app.example' } : {}) },
    body,
  });
  const kept: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!PATH_HEADERS.test(name)) kept[name] = name === 'x-request-id' ? value.replace(requestId, '<id>') : value;
  });
  return { status: response.status, headers: kept, body: (await response.text()).replaceAll(requestId, '<id>') };
}

/** The same request through both paths; for a key, each path gets a fresh workspace holding the same scopes. */
async function bothPaths(body: unknown, options: { headers?: Record<string, string>; scopes?: string[]; key?: 'fresh' | 'invalid' } = {}): Promise<{ common: Answer; yoga: Answer }> {
  const keyFor = async () => (options.key === 'fresh' ? (await svc.newKey({ scopes: options.scopes })).key : options.key === 'invalid' ? 'svc_live_not-a-real-key' : undefined);
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const common = await post(text, options.headers ?? {}, await keyFor(), false);
  const yoga = await post(text, options.headers ?? {}, await keyFor(), true);
  return { common, yoga };
}

const health = { query: '{ health { status service version timestamp } }' };

describe('the common GraphQL request answers exactly what yoga answers', () => {
  it.each([
    ['health', health, {}],
    ['health for graphql-response+json', health, { accept: 'application/graphql-response+json' }],
    ['health for */*', health, { accept: '*/*' }],
    ['health for a list of types', health, { accept: 'application/graphql-response+json;charset=utf-8, application/json;q=0.9' }],
    ['health with a charset on the body', health, { 'content-type': 'application/json; charset=utf-8' }],
    ['a validation error (200 for application/json)', { query: '{ whoamii { keyId } }' }, {}],
    ['a validation error (400 for graphql-response+json)', { query: '{ whoamii { keyId } }' }, { accept: 'application/graphql-response+json' }],
    ['a document that does not parse', { query: '{ health { ' }, {}],
    ['a variable that does not coerce', { query: 'query($q: String!, $l: Int) { searchSubforums(query: $q, limit: $l) { nextCursor } }', variables: { q: 'forum', l: 'two' } }, {}],
    ['a missing required variable', { query: 'query($q: String!) { searchSubforums(query: $q) { nextCursor } }' }, {}],
    ['an operation name that names nothing', { query: 'query A { health { status } }', operationName: 'B' }, {}],
    ['two operations and no name', { query: 'query A { health { status } } query B { health { version } }' }, {}],
    ['the named one of two operations', { query: 'query A { health { status } } query B { health { version } }', operationName: 'B' }, {}],
    ['a key-only field without a key', { query: '{ whoami { keyId } }' }, {}],
    ['null variables and extensions', { query: '{ health { status } }', variables: null, extensions: null, operationName: null }, {}],
  ])('%s', async (_name, body, headers) => {
    const { common, yoga } = await bothPaths(body, { headers });
    expect(common).toEqual(yoga);
  });

  it('an invalid key: the 401 and its challenge', async () => {
    const { common, yoga } = await bothPaths({ query: '{ whoami { label } }' }, { key: 'invalid' });
    expect(common.status).toBe(401);
    expect(common).toEqual(yoga);
  });

  it.each([
    ['a free call with its balance', { query: '{ whoami { label scopes } }' }, {}],
    ['a billed read: charge, balance and extensions', { query: '{ forumPost(id: "1a00001") { id title } }' }, {}],
    ['a billed read and a failed one beside it (partial data)', { query: '{ whoami { label } forumPost(id: "zzzzzzzz9") { id } }' }, {}],
    ['a dry run', { query: '{ forumPost(id: "1a00001") { id } }', extensions: { dryRun: true } }, {}],
    ['maxCredits below the worst case', { query: '{ searchForumPosts(query: "a", limit: 50) { items { id } } }', extensions: { maxCredits: 3 } }, {}],
    ['maxCredits as a header', { query: '{ forumPost(id: "1a00001") { id } }' }, { 'x-max-credits': '1' }],
    ['an argument out of bounds', { query: '{ searchForumPosts(query: "a", limit: 5000) { items { id } } }' }, {}],
    ['a query above the worst-case ceiling', { query: '{ microblogPostSearch(query: "a", limit: 100) { items { authorProfile { posts(limit: 100) { items { id } } } } } }' }, {}],
  ])('%s', async (_name, body, headers) => {
    const { common, yoga } = await bothPaths(body, { headers, key: 'fresh' });
    expect(common.headers['x-credits-charged']).toBeDefined();
    expect(common).toEqual(yoga);
  });

  it('a key without the scope', async () => {
    const { common, yoga } = await bothPaths({ query: '{ forumPost(id: "1a00001") { id } }' }, { key: 'fresh', scopes: ['usage:read'] });
    expect(common.status).toBe(403);
    expect(common).toEqual(yoga);
  });

  it.each([
    ['a batch', [health, health]],
    ['JSON that does not parse', '{"query":'],
    ['a body that is not an object', 'null'],
    ['a parameter yoga does not know', { ...health, persisted: true }],
    ['a query that is not a string', { query: 42 }],
    ['a body starting with a UTF-8 byte order mark', `\uFEFF${JSON.stringify(health)}`],
  ])('%s is refused by yoga itself, whichever way it came', async (_name, body) => {
    const { common, yoga } = await bothPaths(body);
    expect(common.status).toBe(400);
    expect(common).toEqual(yoga);
  });
});
