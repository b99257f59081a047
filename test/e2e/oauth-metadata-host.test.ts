import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

/** A GET with headers fetch will not send as given (Host). */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    })
      .on('error', reject)
      .end();
  });
}

/** Every URL a metadata document names, wherever it is in it. */
function urlsIn(value: unknown): string[] {
  if (typeof value === 'string') return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(urlsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(urlsIn);
  return [];
}

const FORGED = { host: 'evil.example', 'x-forwarded-host': 'evil.example, api.example.test', 'x-forwarded-proto': 'http' };
const DOCUMENTS = ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'];

describe('OAuth metadata names only the public URL, whatever Host or X-Forwarded-Host a request sends', () => {
  let svc: TestService;
  let local: TestService;

  beforeAll(async () => {
    [svc, local] = await Promise.all([startTestService({ publicUrl: 'https://api.example.test' }), startTestService()]);
  });
  afterAll(async () => {
    await Promise.all([svc?.close(), local?.close()]);
  });

  it.each(DOCUMENTS)('with SVC_PUBLIC_URL set: %s', async (path) => {
    const answer = await get(`${svc.url}${path}`, FORGED);
    expect(answer.status).toBe(200);
    const urls = urlsIn(answer.body);
    expect(urls.length).toBeGreaterThan(0);
    expect(urls.filter((url) => new URL(url).origin !== 'https://api.example.test')).toEqual([]);
    if (path === '/.well-known/oauth-authorization-server') {
      expect(answer.body.authorization_endpoint).toBe('https://api.example.test/oauth/authorize');
      expect(answer.body.token_endpoint).toBe('https://api.example.test/oauth/token');
    }
  });

  it('without it: the listener’s own URL, not the forged Host', async () => {
    const answer = await get(`${local.url}/.well-known/oauth-authorization-server`, FORGED);
    expect(answer.status).toBe(200);
    expect(urlsIn(answer.body).filter((url) => new URL(url).origin !== local.url)).toEqual([]);
  });
});
