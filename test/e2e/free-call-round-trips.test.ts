import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCreditsService, type CreditsService } from '../../adapters/billing/credits-service.ts';
import { KNOWN_BALANCE_RULES } from '../../adapters/billing/known-balances.ts';
import { sqlDbFromOrm } from '../../adapters/db/sql.ts';
import { charged } from '../support/assertions.ts';
import { fundedWorkspace } from '../support/billing.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { logStatements, type StatementLog } from '../support/statements.ts';

/**
 * Issue 13: a free call (whoami) on an account this instance knows sends no statement, and its x-credits-remaining
 * follows this instance's own spending exactly; other instances' spending shows within the documented bounds.
 */
let svc: TestService;
let log: StatementLog;
/** Another instance's credits engine on the same database: its charges are not this instance's. */
let elsewhere: CreditsService;
let clock = Date.now();

/** Written behind the calls on timers of their own, never by a free call: the usage ledger's batch, lease syncs. */
const BACKGROUND = /insert into "usage_charge"|billing_lease_sync/;
const READS_BALANCE = /from billing_account a where/;

/** The call's response and the statements sent while it ran, background work aside. */
async function measured(call: () => Promise<{ status: number; headers: Headers }>) {
  const from = log.texts.length;
  const res = await call();
  return { res, remaining: Number(res.headers.get('x-credits-remaining')), sent: log.texts.slice(from).filter((sql) => !BACKGROUND.test(sql)) };
}

const whoami = (key: string) => measured(() => svc.request('GET', '/v1/whoami', { key }));
const search = (key: string) => measured(() => svc.request('POST', '/v1/forum/search', { key, body: { query: 'nothing-matches-qzxv' } }));

async function spendElsewhere(workspaceId: string, credits: number): Promise<void> {
  const hold = await elsewhere.admit(workspaceId, { minimumCredits: credits, reserveCredits: credits });
  await elsewhere.settle(hold, credits);
}

beforeAll(async () => {
  // No job runner: its polling would be statements no call made. A ceiling far above the calls: one rate-limit
  // slice covers them all (taking slices is the rate limiter's round trip, docs/hot-path.md).
  svc = await startTestService({ now: () => new Date(clock), jobs: { autostart: false }, tiers: { free: { rateLimitPerMinute: 1_000_000 } } });
  elsewhere = createCreditsService({ db: sqlDbFromOrm(svc.service.orm), clock: () => new Date(clock) });
  log = logStatements(svc);
});
afterAll(async () => {
  log?.stop();
  await svc?.close();
});

describe('the free call and the database', () => {
  it('a known account: no statement, and the balance after each of this instance\'s charges, exactly', async () => {
    const { key } = await fundedWorkspace(svc, 100);
    const first = await whoami(key);
    expect(first.remaining).toBe(100);
    let balance = 100;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 5; i++) {
        const free = await whoami(key);
        expect(free.res.status).toBe(200);
        expect(free.remaining).toBe(balance);
        expect(free.sent).toEqual([]);
      }
      const billed = await search(key);
      expect(billed.res.status).toBe(200);
      balance -= charged(billed.res);
      expect(billed.remaining).toBe(balance);
    }
    expect(balance).toBeLessThan(100);
  });

  it('billed on a lease too: the header follows the calls charged from memory, with no statement', async () => {
    const { key } = await fundedWorkspace(svc, 100_000);
    let balance = (await whoami(key)).remaining;
    for (let round = 0; round < 3; round++) {
      const billed = await measured(() => svc.request('GET', '/v1/forum/posts/1a00005', { key }));
      expect(billed.res.status).toBe(200);
      balance -= charged(billed.res);
      expect(charged(billed.res)).toBeGreaterThan(0);
      const free = await whoami(key);
      expect(free.remaining).toBe(balance);
      expect(free.sent).toEqual([]);
    }
  });

  it('another instance\'s spending shows after refreshAfterMs (read behind the call) or, idle, on the next call', async () => {
    const { key, workspaceId } = await fundedWorkspace(svc, 100);
    expect((await whoami(key)).remaining).toBe(100);
    await spendElsewhere(workspaceId, 10);
    clock += KNOWN_BALANCE_RULES.refreshAfterMs - 1;
    const fresh = await whoami(key);
    expect([fresh.remaining, fresh.sent]).toEqual([100, []]);

    clock += 1;
    // Answered from memory at once; one read goes out behind it.
    const behind = await whoami(key);
    expect(behind.remaining).toBe(100);
    expect(behind.sent.some((sql) => READS_BALANCE.test(sql))).toBe(true);
    await expect.poll(async () => (await whoami(key)).remaining).toBe(90);

    await spendElsewhere(workspaceId, 5);
    clock += KNOWN_BALANCE_RULES.maxAgeMs;
    const idle = await whoami(key);
    expect(idle.remaining).toBe(85);
    expect(idle.sent.some((sql) => READS_BALANCE.test(sql))).toBe(true);
  });

  it('a purchase through this instance is in its next answer', async () => {
    const { key, workspaceId } = await fundedWorkspace(svc, 100);
    expect((await whoami(key)).remaining).toBe(100);
    expect((await svc.operator('POST', `/operator/workspaces/${workspaceId}/purchases`, { usdCents: 0, credits: 50 })).status).toBe(201);
    expect((await whoami(key)).remaining).toBe(150);
  });
});

describe('an MCP tool call refused for an unknown argument', () => {
  it('reports the known balance in _meta.credits and the header, sending no statement', async () => {
    const { key } = await fundedWorkspace(svc, 100);
    expect((await whoami(key)).remaining).toBe(100);
    const refused = await measured(() => svc.request('POST', '/mcp', {
      key,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_forum_posts', arguments: { query: 'x', limitt: 2 } } },
    }));
    const body = (refused.res as unknown as { body: any }).body;
    const result = (typeof body === 'string' ? JSON.parse(body.split('data: ').pop()!) : body).result;
    expect(result.structuredContent.error).toMatchObject({ code: 'invalid_request', details: { field: 'limitt' } });
    expect(result._meta.credits).toEqual({ charged: 0, remaining: 100, worstCase: expect.any(Number) });
    expect(refused.remaining).toBe(100);
    expect(refused.sent).toEqual([]);
  });
});
