import type { GraphQLResolveInfo } from 'graphql';
import type { BillingUnit } from './billing-units.ts';

/** The key of the root field a resolver runs under, so units are billed to the operation that returned them. */
export function rootKeyOf(info: Pick<GraphQLResolveInfo, 'path'>): string {
  let path = info.path;
  while (path.prev) path = path.prev;
  return String(path.key);
}

/** How many billable items a value holds: each element of a list, one for an object, none for null. */
export function itemsIn(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  return value === null || value === undefined ? 0 : 1;
}

/**
 * Counts billable units per root field while a call executes. The pipeline prices them with the catalogue
 * once execution is over, and charges only root fields that succeeded.
 */
export class Meter {
  private readonly units = new Map<string, Map<BillingUnit, number>>();

  add(info: Pick<GraphQLResolveInfo, 'path'>, unit: BillingUnit, count: number): void {
    if (count <= 0) return;
    const key = rootKeyOf(info);
    let perRoot = this.units.get(key);
    if (!perRoot) {
      perRoot = new Map();
      this.units.set(key, perRoot);
    }
    perRoot.set(unit, (perRoot.get(unit) ?? 0) + count);
  }

  unitsOf(rootKey: string): ReadonlyMap<BillingUnit, number> {
    return this.units.get(rootKey) ?? new Map();
  }
}
