import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * A document of several operations runs the one the request names, on every path to execution: the policy checks
 * and bills the named operation, so running another would serve it unchecked (security review h, F0: yoga's path
 * kept one compiled form per document, whichever operation was asked for first, and ran it for every name).
 */
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

const READ = 'query A { health { status } } query B($q: String!) { searchForumPosts(query: $q, limit: 5) { items { id } } }';

/** The ways a request reaches yoga's own path: GET, a browser's POST (with Origin), an application/graphql body. */
function viaYoga(kind: 'get' | 'origin', query: string, operationName: string, variables: Record<string, unknown>, key?: string) {
  const auth: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  if (kind === 'get') {
    const params = new URLSearchParams({ query, operationName, variables: JSON.stringify(variables) });
    return fetch(`${svc.url}/graphql?${params}`, { headers: { accept: 'application/json', ...auth } });
  }
  return fetch(`${svc.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', origin: 'https://app.example', ...auth },
    body: JSON.stringify({ query, operationName, variables }),
  });
}

describe('the operation a request names', () => {
  for (const kind of ['get', 'origin'] as const) {
    it(`is the one that runs (${kind}), after another of the same document ran first`, async () => {
      const { key } = await svc.newKey();
      const primed = await viaYoga(kind, READ, 'B', { q: 'zzqqxx-nothing' }, key);
      expect(primed.status).toBe(200);
      expect((await primed.json()).data).toEqual({ searchForumPosts: { items: [] } });
      // Without a key: only `health`, free. Before: the search ran, unbilled and unchecked.
      const asked = await viaYoga(kind, READ, 'A', { q: 'rust' });
      expect(asked.headers.get('x-credits-charged')).toBe('0');
      expect(await asked.json()).toEqual({ data: { health: { status: 'ok' } } });
      // And the other way round: B is still B.
      const other = await viaYoga(kind, READ, 'B', { q: 'zzqqxx-nothing' }, key);
      expect((await other.json()).data).toEqual({ searchForumPosts: { items: [] } });
    });
  }

  it('never runs a mutation of the document for a request that names a query', async () => {
    const owner = await svc.newKey({ scopes: ['read:social', 'monitors:read', 'monitors:write'] });
    const created = await svc.request('POST', '/v1/monitors', { key: owner.key, body: { name: 'kept', target: { kind: 'subforum', subforum: 'programming' }, schedule: 'manual' } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const reader = await svc.newKey({ workspaceId: owner.workspaceId, scopes: ['monitors:read'] });
    const document = 'query A { whoami { keyId } } mutation B($id: String!) { deleteMonitor(id: $id) { id deleted } }';
    const primed = await viaYoga('origin', document, 'B', { id: '00000000-0000-4000-8000-000000000000' }, owner.key);
    expect((await primed.json()).errors[0].extensions.code).toBe('not_found');
    const asked = await viaYoga('get', document, 'A', { id }, reader.key);
    expect((await asked.json()).data).toEqual({ whoami: { keyId: reader.keyId } });
    expect((await svc.request('GET', `/v1/monitors/${id}`, { key: owner.key })).status).toBe(200);
  });

  it('is refused when the request names none the document holds, an empty name included, before anything is checked or run', async () => {
    const { key } = await svc.newKey();
    for (const operationName of ['', 'C']) {
      const res = await svc.request('POST', '/graphql', { key, body: { query: READ, operationName, variables: { q: 'rust' } } });
      expect(res.status).toBe(400);
      expect(res.headers.get('x-credits-charged')).toBe('0');
      expect(res.body.data).toBeUndefined();
    }
  });
});

describe('what runs is what the policy read (security review h, G-H1 and G-M1)', () => {
  it('keeps a variable inside a JSON argument literal: the monitor is made with the keywords that were checked', async () => {
    const { key } = await svc.newKey({ scopes: ['read:social', 'monitors:write'] });
    const created = await svc.graphql(
      'mutation M($kw: String) { createMonitor(name: "literal", schedule: "manual", target: {kind: "subforum", subforum: "programming", keywords: $kw}) { id target } }',
      { kw: 'rust' },
      key,
    );
    // Before: {kind: 'subforum', subforum: 'programming'}, the keywords dropped, and every run read the whole community.
    expect(created.body.data.createMonitor.target).toEqual({ kind: 'subforum', subforum: 'programming', keywords: 'rust' });
  });

  it('runs a root field whatever another operation of the same text skipped before, and charges only what ran', async () => {
    const { key } = await svc.newKey();
    const world = svc.service.platforms.sims.forum!.world;
    for (let i = 0; i < 2; i++) world.addPost({ subforum: 'programming', title: `skippedwombat ${i}`, selftext: 'Still here.' });
    const text = 'query A($s: Boolean = false) { ...F @include(if: $s) } query B { ...F } fragment F on Query { searchForumPosts(query: "skippedwombat", limit: 2) { items { id } } }';
    const skipped = await svc.request('POST', '/graphql', { body: { query: text, operationName: 'A' } });
    expect(skipped.body).toEqual({ data: {} });
    // Before: {data: {}} and 1 credit charged, for a field that never ran.
    const ran = await svc.request('POST', '/graphql', { key, body: { query: text, operationName: 'B' } });
    expect(ran.body.data.searchForumPosts.items).toHaveLength(2);
    expect(ran.headers.get('x-credits-charged')).toBe(String(1 + 3 * 2));
    // A fragment spread again after a skipped spread of it still runs, as graphql-js runs it.
    const twice = await svc.graphql('{ ...F @skip(if: true) ...F } fragment F on Query { searchForumPosts(query: "skippedwombat", limit: 1) { items { id } } }', undefined, key);
    expect(twice.body.data.searchForumPosts.items).toHaveLength(1);
  });
});

