import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService();
  ({ key } = await svc.newKey({ scopes: ['read:social'] }));
});
afterAll(async () => {
  await svc?.close();
});

/** Every authenticated response says what it charged and what is left, refusals made before reading included. */
describe('credit headers on responses refused before any operation ran', () => {
  it.each(['/v1/forum/search', '/mcp'])('%s: a 413 carries x-credits-charged 0 and the balance', async (path) => {
    const res = await svc.request('POST', path, { key, rawBody: 'x'.repeat(1024 * 1024 + 1), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.headers.get('x-credits-charged')).toBe('0');
    expect(res.headers.get('x-credits-remaining')).toBe('5000');
  });

  it('an MCP tools/list carries them too', async () => {
    const res = await fetch(`${svc.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    await res.text();
    expect(res.headers.get('x-credits-charged')).toBe('0');
    expect(res.headers.get('x-credits-remaining')).toBe('5000');
  });
});
