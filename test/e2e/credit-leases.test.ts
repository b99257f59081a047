import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCreditsRefusal } from '../../adapters/billing/credits-refusal.ts';
import { charged } from '../support/assertions.ts';
import { fundedWorkspace, usageOf, visiblePostIds } from '../support/billing.ts';
import { killServiceProcesses, startServiceProcess, type ServiceProcess } from '../support/service-process.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Credit leases across two real service processes on one PostgreSQL: this test's instance and a `node server.ts`
 * child. Each admits and settles calls against its own slice of the workspace's credits; the books are exact
 * once booked, and the slice of a process killed with SIGKILL comes back when its lease expires by the
 * database's clock.
 */
const POST_PRICE = 4;
let svc: TestService;
/** The one child process of this file (each test on a workspace of its own); the last test kills it. */
let child: ServiceProcess;

beforeAll(async () => {
  if (!process.env.TEST_DATABASE_URL) return;
  svc = await startTestService({ tiers: { free: { rateLimitPerMinute: 1_000_000 } } });
  child = await startServiceProcess(svc);
}, 120_000);
afterAll(async () => {
  await killServiceProcesses();
  await svc?.close();
});

/** One billed read, REST or GraphQL, through the instance at `url`. */
async function read(url: string, key: string, id: string, graphql: boolean): Promise<{ status: number; charged: number; served: boolean; error?: unknown }> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const res = graphql
    ? await fetch(`${url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: 'query($id: String!) { forumPost(id: $id) { id } }', variables: { id } }) })
    : await fetch(`${url}/v1/forum/posts/${id}`, { headers });
  const body = await res.json();
  return { status: res.status, charged: charged(res), served: res.status === 200 && !body.errors, error: body.error ?? body.errors };
}

async function leasesOf(workspaceId: string): Promise<Array<{ credits: number; live: boolean }>> {
  const rows = await svc.service.orm.em.getConnection().execute<Array<{ credits: string; live: boolean }>>(
    'select credits, expires_at > now() as live from billing_lease where workspace_id = ?', [workspaceId], 'all');
  return rows.map((row) => ({ credits: Number(row.credits), live: row.live }));
}

async function ledgerCharges(workspaceId: string): Promise<{ total: number; rows: number }> {
  const ledger = (await svc.operator('GET', `/operator/workspaces/${workspaceId}/ledger`)).body.data as Array<{ kind: string; credits: number }>;
  const charges = ledger.filter((row) => row.kind === 'charge');
  return { total: charges.reduce((sum, row) => sum - row.credits, 0), rows: charges.length };
}

describe.runIf(process.env.TEST_DATABASE_URL)('credit leases across two processes (need a PostgreSQL server; skipped on PGlite)', () => {
  it('200 concurrent billed calls on one workspace: Σ x-credits-charged = balance change = ledger charges', async () => {
    const childUrl = child.url;
    // $500 of purchases: tier t3, whose rate limit the 200 calls stay well under on either instance's tier table.
    const { key, workspaceId } = await fundedWorkspace(svc, 100_000, 50_000);
    const ids = visiblePostIds(svc, 20);

    // Sequential calls on one instance: x-credits-remaining is the balance after each call, from memory.
    const first = await svc.request('GET', `/v1/forum/posts/${ids[0]}`, { key });
    const second = await svc.request('GET', `/v1/forum/posts/${ids[1]}`, { key });
    expect([charged(first), charged(second)]).toEqual([POST_PRICE, POST_PRICE]);
    expect(Number(second.headers.get('x-credits-remaining'))).toBe(100_000 - 2 * POST_PRICE);

    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => read(i % 2 === 0 ? svc.url : childUrl, key, ids[i % ids.length], i % 4 >= 2)),
    );
    expect(responses.filter((res) => !res.served || res.charged !== POST_PRICE)).toEqual([]);
    const total = 2 * POST_PRICE + responses.reduce((sum, res) => sum + res.charged, 0);

    // Usage books every instance's charges first: the child's included, no waiting in the test.
    const usage = await usageOf(svc, key);
    expect(usage).toMatchObject({ balance: 100_000 - total, reserved: 0, available: 100_000 - total });
    const ledger = await ledgerCharges(workspaceId);
    expect(ledger.total).toBe(total);
    // A ledger row per sync that booked charges, not per call.
    expect(ledger.rows).toBeLessThan(202);
    const fromChild = await fetch(`${childUrl}/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
    expect((await fromChild.json()).data.balance).toBe(100_000 - total);
  }, 120_000);

  it('the lease of a process killed with SIGKILL holds its credits until it expires by the database clock, then they come back', async () => {
    const childUrl = child.url;
    const { key, workspaceId } = await fundedWorkspace(svc, 20_000);
    const [id] = visiblePostIds(svc, 1);
    for (let i = 0; i < 10; i++) expect((await read(childUrl, key, id, false)).charged).toBe(POST_PRICE);
    // Read through this instance: the child's charges are booked before it answers.
    expect((await usageOf(svc, key)).balance).toBe(20_000 - 40);
    await child.kill();

    const [lease] = await leasesOf(workspaceId);
    expect(lease.live).toBe(true);
    // A quarter of what no one else held, refilled at its last sync.
    expect(lease.credits).toBe(Math.floor((20_000 - 40) / 4));
    // Its unused part is not shown as spent, nor as reserved by calls in flight...
    expect(await usageOf(svc, key)).toMatchObject({ balance: 19_960, reserved: 0 });
    // ...but no admission can take it while the lease lives.
    const everything = { minimumCredits: 19_960, reserveCredits: 19_960 };
    const refusal = await svc.service.credits.admit(workspaceId, everything).catch((error: unknown) => error);
    expect(isCreditsRefusal(refusal) && refusal.code).toBe('credits_held');

    // The database's clock passes the lease's expiry (as if its ten seconds had gone by; nothing sleeps).
    await svc.service.orm.em.getConnection().execute(
      `update billing_lease set expires_at = now() - interval '1 millisecond' where workspace_id = ?`, [workspaceId]);
    const all = await svc.service.credits.admit(workspaceId, everything);
    expect(all.credits).toBe(19_960);
    await svc.service.credits.release(all);
    await svc.service.credits.sweepExpiredReservations();
    expect(await leasesOf(workspaceId)).toEqual([]);
    expect((await ledgerCharges(workspaceId)).total).toBe(40);
    expect((await usageOf(svc, key)).balance).toBe(19_960);
  }, 120_000);
});
