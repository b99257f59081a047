import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCorsPolicy } from '../../service/cors.ts';
import { createHttpServer, type HttpRoutes } from '../../service/http-server.ts';

/**
 * Which handler the listener gives a `/graphql` request: the common one (POST, JSON, no `Origin`) goes to the fast
 * path and never to yoga; the rest, and a common one the fast path declines, go to yoga. Both answer identically
 * (test/e2e/graphql-json-post.test.ts), so only handlers that record their calls can tell them apart.
 */
let server: Server;
let url: string;
const calls: string[] = [];
let fastPathAnswers = true;

beforeAll(async () => {
  const yoga = Object.assign(
    (_req: unknown, res: { writeHead(status: number): void; end(body: string): void }) => {
      calls.push('yoga node');
      res.writeHead(200);
      res.end('yoga');
    },
    {
      fetchAPI: { Request },
      fetch: async () => {
        calls.push('yoga fetch');
        return new Response('yoga');
      },
    },
  );
  const routes = {
    deps: {},
    graphql: yoga,
    graphqlJson: async () => {
      calls.push('fast path');
      return fastPathAnswers ? { status: 200, headers: { 'content-type': 'application/json' }, body: 'fast' } : undefined;
    },
    now: () => new Date('2026-03-04T05:06:07.000Z'),
    oauth: () => undefined,
    cors: createCorsPolicy(new Set()),
  } as unknown as HttpRoutes;
  server = createHttpServer(routes);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});
beforeEach(() => {
  calls.length = 0;
  fastPathAnswers = true;
});

const query = JSON.stringify({ query: '{ health { status } }' });

describe('the /graphql listener', () => {
  it('answers the common JSON POST on the fast path, without yoga', async () => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: query });
    expect(await response.text()).toBe('fast');
    expect(calls).toEqual(['fast path']);
  });

  it('hands a common request the fast path declines to yoga, once', async () => {
    fastPathAnswers = false;
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: query });
    expect(await response.text()).toBe('yoga');
    expect(calls).toEqual(['fast path', 'yoga fetch']);
  });

  it('gives a request with an Origin, or a GET, to yoga alone; a JSON body read first (its depth is checked)', async () => {
    await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'https://app.example' }, body: query })).text();
    await (await fetch(`${url}?query=${encodeURIComponent('{ health { status } }')}`)).text();
    await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/graphql', origin: 'https://app.example' }, body: '{ health { status } }' })).text();
    expect(calls).toEqual(['yoga fetch', 'yoga node', 'yoga node']);
  });
});
