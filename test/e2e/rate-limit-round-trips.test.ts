import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedWorkspace } from '../support/billing.ts';
import { charged } from '../support/assertions.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Issue 13: a 429 rate-limit refusal costs no database round trip. Every statement the service sends is recorded,
 * through the ORM's connection and through `pg` itself (the rate-limit store's pool, the key change feed).
 */
const CEILING = 6;
let svc: TestService;
const texts: string[] = [];
const textOf = (query: unknown) => (typeof query === 'string' ? query : ((query as { text?: string } | null)?.text ?? ''));
const originalQuery = pg.Client.prototype.query;

beforeAll(async () => {
  // No job runner: its polling would be statements no call made.
  svc = await startTestService({ tiers: { free: { rateLimitPerMinute: CEILING } }, jobs: { autostart: false } });
  const connection = svc.service.orm.em.getConnection();
  const execute = connection.execute.bind(connection);
  connection.execute = ((...args: Parameters<typeof execute>) => {
    texts.push(textOf(args[0]));
    return execute(...args);
  }) as typeof connection.execute;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    texts.push(textOf(args[0]));
    return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pg.Client.prototype.query;
});
afterAll(async () => {
  pg.Client.prototype.query = originalQuery;
  await svc?.close();
});

describe('rate-limit refusals and the database', () => {
  it('once the window is full, refusals on every surface send no statement, and still report the balance', async () => {
    const { key } = await fundedWorkspace(svc, 100);
    for (let i = 0; i < 2; i++) expect((await svc.request('POST', '/v1/forum/search', { key, body: { query: 'nothing-matches-qzxv' } })).status).toBe(200);
    for (let i = 0; i < CEILING - 4; i++) expect((await svc.request('GET', '/v1/whoami', { key })).status).toBe(200);
    const balance = 100 - 2;
    const from = texts.length;
    const refusals = [
      await svc.request('GET', '/v1/whoami', { key }),
      await svc.request('POST', '/v1/forum/search', { key, body: { query: 'nothing-matches-qzxv' } }),
      await svc.graphql('{ whoami { keyId } }', undefined, key),
      await svc.request('GET', '/v1/forum/posts/1a00005', { key }),
    ];
    for (let i = 0; i < 20; i++) refusals.push(await svc.request('GET', '/v1/whoami', { key }));
    const sent = texts.slice(from);
    // The usage ledger writes the charges of earlier calls in batches, off their path: those are not the refusals'.
    expect(sent.filter((sql) => !sql.startsWith('insert into "usage_charge"'))).toEqual([]);
    const refusalIds = refusals.map((refused) => refused.headers.get('x-request-id')!);
    expect(sent.filter((sql) => refusalIds.some((id) => sql.includes(id)))).toEqual([]);
    for (const refused of refusals) {
      expect(refused.status).toBe(429);
      expect(charged(refused)).toBe(0);
      expect(Number(refused.headers.get('x-credits-remaining'))).toBe(balance);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });

  it('an admitted call of a known key does not read the key again', async () => {
    const { key } = await fundedWorkspace(svc, 0);
    expect((await svc.request('GET', '/v1/whoami', { key })).status).toBe(200);
    const from = texts.length;
    for (let i = 0; i < 3; i++) expect((await svc.request('GET', '/v1/whoami', { key })).status).toBe(200);
    expect(texts.slice(from).filter((sql) => sql.includes('api_key'))).toEqual([]);
  });
});
