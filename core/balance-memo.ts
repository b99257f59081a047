/** Accounts whose balance is remembered per instance; past this the memo starts again (it is only a memo). */
const MAX_ACCOUNTS = 100_000;

/**
 * The balance this instance last reported for each account (`x-credits-remaining`), so a call refused before
 * any credit moved (a 429 rate-limit refusal) can report it without a database round trip. It lags spending
 * through other instances by what they spent since; anything that moves credits reports a fresh figure.
 */
export interface BalanceMemo {
  remember(workspaceId: string, remaining: number): void;
  recall(workspaceId: string): number | undefined;
}

export function createBalanceMemo(): BalanceMemo {
  const balances = new Map<string, number>();
  return {
    remember(workspaceId, remaining) {
      if (balances.size >= MAX_ACCOUNTS && !balances.has(workspaceId)) balances.clear();
      balances.set(workspaceId, remaining);
    },
    recall: (workspaceId) => balances.get(workspaceId),
  };
}
