import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_BALANCE_RULES } from '../../adapters/billing/known-balances.ts';
import { fundedWorkspace } from '../support/billing.ts';
import { charged } from '../support/assertions.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { logStatements, type StatementLog } from '../support/statements.ts';

/**
 * Issue 13: a 429 rate-limit refusal costs no database round trip. Every statement the service sends is recorded.
 */
const CEILING = 6;
let svc: TestService;
let log: StatementLog;
/** The service's clock; the rate limiter's window runs on real time, so moving this leaves the window full. */
let clock = Date.now();

beforeAll(async () => {
  // No job runner: its polling would be statements no call made.
  svc = await startTestService({ now: () => new Date(clock), tiers: { free: { rateLimitPerMinute: CEILING } }, jobs: { autostart: false } });
  log = logStatements(svc);
});
afterAll(async () => {
  log?.stop();
  await svc?.close();
});

describe('rate-limit refusals and the database', () => {
  it('once the window is full, refusals on every surface send no statement, and still report the balance', async () => {
    const { key } = await fundedWorkspace(svc, 100);
    for (let i = 0; i < 2; i++) expect((await svc.request('POST', '/v1/forum/search', { key, body: { query: 'nothing-matches-qzxv' } })).status).toBe(200);
    for (let i = 0; i < CEILING - 4; i++) expect((await svc.request('GET', '/v1/whoami', { key })).status).toBe(200);
    const balance = 100 - 2;
    const from = log.texts.length;
    const refusals = [
      await svc.request('GET', '/v1/whoami', { key }),
      await svc.request('POST', '/v1/forum/search', { key, body: { query: 'nothing-matches-qzxv' } }),
      await svc.graphql('{ whoami { keyId } }', undefined, key),
      await svc.request('GET', '/v1/forum/posts/1a00005', { key }),
    ];
    for (let i = 0; i < 20; i++) refusals.push(await svc.request('GET', '/v1/whoami', { key }));
    const sent = log.texts.slice(from);
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

  it('a refusal sends no statement even once the balance it reports is older than a free call would answer', async () => {
    const { key } = await fundedWorkspace(svc, 100);
    for (let i = 0; i < 2; i++) expect((await svc.request('POST', '/v1/forum/search', { key, body: { query: 'nothing-matches-qzxv' } })).status).toBe(200);
    for (let i = 0; i < CEILING - 4; i++) expect((await svc.request('GET', '/v1/whoami', { key })).status).toBe(200);
    // Past maxAgeMs a free call would read the balance again: only the last learned one costs no statement now.
    // Works only because the rate limiter reads Date.now() while the service's clock is injected: on one clock the window would empty.
    clock += KNOWN_BALANCE_RULES.maxAgeMs + 1_000;
    const from = log.texts.length;
    const refusals = [await svc.request('GET', '/v1/whoami', { key }), await svc.graphql('{ whoami { keyId } }', undefined, key), await svc.request('GET', '/v1/forum/posts/1a00005', { key })];
    const sent = log.texts.slice(from);
    expect(sent.filter((sql) => !sql.startsWith('insert into "usage_charge"'))).toEqual([]);
    for (const refused of refusals) {
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('x-credits-remaining'))).toBe(100 - 2);
    }
  });

  it('an admitted call of a known key does not read the key again', async () => {
    const { key } = await fundedWorkspace(svc, 0);
    expect((await svc.request('GET', '/v1/whoami', { key })).status).toBe(200);
    const from = log.texts.length;
    for (let i = 0; i < 3; i++) expect((await svc.request('GET', '/v1/whoami', { key })).status).toBe(200);
    expect(log.texts.slice(from).filter((sql) => sql.includes('api_key'))).toEqual([]);
  });
});
