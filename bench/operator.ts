import type { BenchService } from './processes.ts';

/** A call to the service's operator API (its own listener), with its token. */
export async function operator<T>(service: BenchService, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${service.operatorUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${service.operatorToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`operator ${method} ${path} answered ${response.status}: ${text}`);
  return (JSON.parse(text) as { data: T }).data;
}

export async function workspaceOf(service: BenchService, key: string): Promise<string> {
  const who = (await (await fetch(`${service.url}/v1/whoami`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { workspaceId: string } };
  return who.data.workspaceId;
}

export async function buyCredits(service: BenchService, workspaceId: string, credits: number): Promise<void> {
  await operator(service, 'POST', `/operator/workspaces/${workspaceId}/purchases`, { usdCents: 0, credits });
}

export async function balanceOf(service: BenchService, workspaceId: string): Promise<number> {
  return (await operator<{ balance: number }>(service, 'GET', `/operator/workspaces/${workspaceId}/usage`)).balance;
}

/** Σ of the ledger's charges (its own listing folds pending charges first). */
export async function ledgerCharges(service: BenchService, workspaceId: string): Promise<{ credits: number; rows: number }> {
  const entries = await operator<Array<{ kind: string; credits: number }>>(service, 'GET', `/operator/workspaces/${workspaceId}/ledger`);
  const charges = entries.filter((entry) => entry.kind === 'charge');
  return { credits: -charges.reduce((sum, entry) => sum + entry.credits, 0), rows: charges.length };
}

/** A new workspace with a key of the read scopes, on the operator API. */
export async function newWorkspaceKey(service: BenchService, name: string): Promise<{ workspaceId: string; key: string }> {
  const workspace = await operator<{ id: string }>(service, 'POST', '/operator/workspaces', { name });
  const key = await operator<{ key: string }>(service, 'POST', '/operator/keys', { workspaceId: workspace.id, scopes: ['read:social', 'usage:read'], expiresInDays: null });
  return { workspaceId: workspace.id, key: key.key };
}
