import { describe, expect, it } from 'vitest';
import { requestTarget } from '../../service/request-target.ts';

/** The split must give what URL parsing gives, for the plain targets it handles and the odd ones it hands to URL. */
describe('requestTarget', () => {
  it.each([
    '/v1/whoami',
    '/',
    '/v1/forum/posts/1a00005',
    '/v1/forum/posts/1a00005/',
    '/openapi.json',
    '/v1/forum/search?query=a%20b&limit=5',
    '/v1/forum/posts/abc%2Fdef?x=1&x=2',
    '/v1/forum/posts/a+b?q=a+b',
    '/v1/./whoami',
    '/v1/../health',
    '//v1/whoami',
    '/v1/whoami#fragment',
    '/v1/whoami?q=1#fragment',
    '/v1/forum/posts/é?q=é',
    '/v1/forum/posts/a b?q=a b',
    '/v1/x..y',
    '/v1/%2e%2e/health',
    '/v1/%2E%2e/health',
    '/v1/%2e/whoami',
    '/v1/.%2E/health?q=1',
    '/v1/%2e%2e',
    '/v1/x%2ey',
    'http://example.com/v1/whoami?a=1',
    '*',
    '',
  ])('%s', (target) => {
    const url = new URL(target || '/', 'http://localhost');
    const split = requestTarget(target || undefined);
    expect(split.pathname).toBe(url.pathname);
    expect([...new URLSearchParams(split.search)]).toEqual([...url.searchParams]);
  });
});
