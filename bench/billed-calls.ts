import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getForumPost } from '../schema/catalogue/forum-posts.ts';
import { load, type LoadResult } from './load.ts';
import { spawnService } from './processes.ts';

const UNLIMITED = JSON.stringify({ free: { rateLimitPerMinute: 1_000_000_000 }, t1: { rateLimitPerMinute: 1_000_000_000 } });

/**
 * The same billed call (`GET /v1/forum/posts/{id}`, 4 credits) on one hot workspace, billed through the ledger and
 * unbilled (`SVC_BILLING=off`), each service in its own process, measured in the same run.
 */
export async function billedVersusUnbilled(options: { seconds: number; connections: number; env?: Record<string, string> }): Promise<LoadResult[]> {
  const path = `/v1/forum/posts/${(getForumPost.example as { id: string }).id}`;
  const results: LoadResult[] = [];
  for (const billing of ['on', 'off'] as const) {
    const service = await spawnService({ SVC_TIERS: UNLIMITED, SVC_BILLING: billing, ...options.env });
    try {
      const headers = { authorization: `Bearer ${service.key}` };
      if (billing === 'on') {
        const token = (await readFile(join(service.dataDir, 'operator-token'), 'utf8')).trim();
        const who = (await (await fetch(`${service.url}/v1/whoami`, { headers })).json()) as { data: { workspaceId: string } };
        const bought = await fetch(`${service.url}/operator/workspaces/${who.data.workspaceId}/purchases`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ usdCents: 0, credits: 1_000_000_000 }),
        });
        if (bought.status !== 201) throw new Error(`purchase failed: ${await bought.text()}`);
      }
      const probe = await fetch(`${service.url}${path}`, { headers });
      if (probe.status !== 200) throw new Error(`${path} answered ${probe.status}: ${await probe.text()}`);
      results.push(await load({ name: `GET ${path} ${billing === 'on' ? 'billed (one hot workspace)' : 'unbilled'}`, url: `${service.url}${path}`, headers }, options));
    } finally {
      await service.stop();
    }
  }
  return results;
}
