/** A source of the current time; injected so tests can move across a month boundary. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** Start of the UTC calendar month containing `at`: the free grant's period. */
export function monthStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/** Start of the next UTC month: when this month's free grant expires and the next one arrives. */
export function nextMonthStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/** `2026-11`: names a grant period in ledger notes. */
export function monthLabel(at: Date): string {
  return at.toISOString().slice(0, 7);
}
