import { Agent, request } from 'undici';
import { balanceOf, ledgerCharges, newWorkspaceKey } from './operator.ts';
import type { BenchService } from './processes.ts';

export interface Books {
  calls: number;
  served: number;
  refused: number;
  chargedSeen: number;
  balanceChange: number;
  ledgerCharged: number;
  finalBalance: number;
  exact: boolean;
}

/**
 * Exact books across instances: `calls` concurrent billed reads on one fresh workspace, spread over the
 * instances; Σ `x-credits-charged` must equal the balance change and the ledger's charges, and the balance stays ≥ 0.
 */
export async function checkBooks(instances: readonly BenchService[], path: string, calls = 200): Promise<Books> {
  const { workspaceId, key } = await newWorkspaceKey(instances[0]!, 'bench books');
  const before = await balanceOf(instances[0]!, workspaceId);
  const agent = new Agent({ connections: calls });
  try {
    const answers = await Promise.all(
      Array.from({ length: calls }, async (_, i) => {
        const res = await request(`${instances[i % instances.length]!.url}${path}`, { headers: { authorization: `Bearer ${key}` }, dispatcher: agent });
        await res.body.dump();
        return { status: res.statusCode, charged: Number(res.headers['x-credits-charged'] ?? NaN) };
      }),
    );
    const after = await balanceOf(instances[1 % instances.length]!, workspaceId);
    const chargedSeen = answers.reduce((sum, answer) => sum + answer.charged, 0);
    const ledger = await ledgerCharges(instances[0]!, workspaceId);
    const served = answers.filter((answer) => answer.status === 200).length;
    return {
      calls,
      served,
      refused: calls - served,
      chargedSeen,
      balanceChange: before - after,
      ledgerCharged: ledger.credits,
      finalBalance: after,
      exact: chargedSeen === before - after && chargedSeen === ledger.credits && after >= 0,
    };
  } finally {
    await agent.close();
  }
}
