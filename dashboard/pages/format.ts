/** How the pages show times: UTC, to the minute, so every reader sees the same figure. */
export function formatDate(value: Date | string | null | undefined, never = '—'): string {
  if (value === null || value === undefined) return never;
  const date = typeof value === 'string' ? new Date(value) : value;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function formatCredits(value: number): string {
  return value.toLocaleString('en-US');
}
