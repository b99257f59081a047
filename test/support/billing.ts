import type { TestService } from './service.ts';

/** Public, visible posts of the simulated forum: what a lookup returns in full. */
export function visiblePostIds(svc: TestService, count: number): string[] {
  const world = svc.service.platforms.sims.forum!.world;
  const ids = world
    .allPosts()
    .filter((post) => {
      const sub = world.subforum(post.subforum);
      return post.removedByCategory === null && sub !== undefined && sub.type === 'public' && !sub.banned && !sub.quarantine;
    })
    .slice(0, count)
    .map((post) => post.id);
  if (ids.length < count) throw new Error(`the simulated forum has only ${ids.length} visible posts`);
  return ids;
}

/**
 * A workspace holding exactly `credits` bought credits and no free grant: the person's second workspace
 * (only each person's oldest workspace receives the monthly grant).
 */
export async function fundedWorkspace(svc: TestService, credits: number, usdCents = 0): Promise<{ key: string; workspaceId: string }> {
  const person = await svc.service.identity.createPerson({ email: `billing-${crypto.randomUUID()}@example.invalid`, name: 'Billing test' });
  await svc.service.identity.createWorkspace({ name: 'oldest', ownerPersonId: person.id });
  const workspace = await svc.service.identity.createWorkspace({ name: 'funded', ownerPersonId: person.id });
  if (credits > 0) {
    const res = await svc.operator('POST', `/operator/workspaces/${workspace.id}/purchases`, { usdCents, credits });
    if (res.status !== 201) throw new Error(`purchase failed: ${JSON.stringify(res.body)}`);
  }
  const { key } = await svc.newKey({ workspaceId: workspace.id, scopes: ['read:social'] });
  return { key, workspaceId: workspace.id };
}

export async function usageOf(svc: TestService, key: string) {
  const res = await svc.request('GET', '/v1/usage', { key });
  if (res.status !== 200) throw new Error(`usage failed: ${JSON.stringify(res.body)}`);
  return res.body.data as { balance: number; reserved: number; available: number; freeGrant: { granted: number; remaining: number; resetsAt: string } | null; tier: string; spendingPaused: boolean };
}
