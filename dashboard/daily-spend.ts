import type { UsageTotal } from '../adapters/shapes/account-shapes.ts';

export interface DaySpend {
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  credits: number;
}

const DAY_MS = 86_400_000;

/** The first instant of the UTC day `days - 1` days before `now`'s, and the first instant after `now`'s day. */
export function spendWindow(now: Date, days: number): { from: Date; to: Date } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return { from: new Date(today - (days - 1) * DAY_MS), to: new Date(today + DAY_MS) };
}

/** Credits charged per UTC day over the window, oldest first, with the days nothing was charged as zero. */
export function dailySpend(totals: readonly UsageTotal[], now: Date, days: number): DaySpend[] {
  const byDay = new Map<string, number>();
  for (const total of totals) byDay.set(total.day, (byDay.get(total.day) ?? 0) + total.credits);
  const { from } = spendWindow(now, days);
  return Array.from({ length: days }, (_, index) => {
    const day = new Date(from.getTime() + index * DAY_MS).toISOString().slice(0, 10);
    return { day, credits: byDay.get(day) ?? 0 };
  });
}

/** A round axis maximum at or above `value`: 1, 2 or 5 times a power of ten. */
export function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}
