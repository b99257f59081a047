import type { z } from 'zod';
import { def, unwrap } from '../zod-shape.ts';
import { priceOf, UNIT_PRICES, type BillingUnit, type OperationSpec } from './operation.ts';

/**
 * The most credits one GraphQL request may be able to cost before it runs. A request whose worst case (every
 * root field and every walked edge at its largest result) exceeds it is refused free: 5,000 credits is one month's
 * free grant, and about fifty full pages of a root operation; deeper walks page through their edges instead.
 */
export const WORST_CASE_CEILING_CREDITS = 5_000;

/** The GraphQL field extension under which a field declares its worst case (root fields and walk edges). */
export const FIELD_COST = 'worstCase';

/** The worst case of one resolution of a field. */
export interface FieldCost {
  /** Credits this field can charge on its own, per resolution (a root field's minimum included). */
  credits: number;
  /** Items the field returns at most: the fields below it resolve at most this many times per resolution. */
  items: number;
  /** Members of the result with a bound of their own (a lookup's `posts`, an edit history's `versions`). */
  members?: Record<string, number>;
}

/** A field's worst case from its arguments; `fixed` when no argument can change it, so none need be coerced to price it. */
export type FieldCostOf = ((args: Record<string, unknown>) => FieldCost) & { readonly fixed?: FieldCost };

const fixedCost = (cost: FieldCost): FieldCostOf => Object.assign(() => cost, { fixed: cost });

/** One input that can bound what a request asks for: whether the operation has it, and what it asks for by it. */
interface AskingInput {
  has(op: OperationSpec): boolean;
  /** Units asked for, per unit or the same for every unit; undefined when the request leaves it out. */
  asked(op: OperationSpec, args: Record<string, unknown>): Partial<Record<BillingUnit, number>> | number | undefined;
}

/**
 * The inputs that can bound what a request asks for, the last that answers winning: its `limit` (as given, or its
 * default), the ids it lists, or the operation's own `unitsAsked`. An operation with none has a price no argument
 * can change.
 */
const ASKING_INPUTS: readonly AskingInput[] = [
  {
    has: (op) => 'limit' in op.input.shape,
    asked: (op, args) => {
      const limit = (op.input.shape as Record<string, z.ZodType>).limit!.safeParse(args.limit);
      return limit.success && typeof limit.data === 'number' ? limit.data : undefined;
    },
  },
  {
    has: (op) => 'ids' in op.input.shape,
    asked: (_op, args) => (typeof args.ids === 'string' ? new Set(args.ids.split(',')).size : undefined),
  },
  { has: (op) => op.billing.unitsAsked !== undefined, asked: (op, args) => op.billing.unitsAsked!(args) },
];

/** Units the request can return at most: the catalogue's maximum, bounded by what the request asks for. */
export function unitsBound(op: OperationSpec, args: Record<string, unknown>): Partial<Record<BillingUnit, number>> {
  const max = op.billing.maxUnits ?? {};
  let asked: Partial<Record<BillingUnit, number>> | number | undefined;
  for (const input of ASKING_INPUTS) {
    if (input.has(op)) asked = input.asked(op, args) ?? asked;
  }
  return Object.fromEntries(
    Object.entries(max).map(([unit, most]) => {
      // Units an operation asks for by name are those alone: one it does not name is not asked for.
      const wanted = typeof asked === 'object' ? (asked[unit as BillingUnit] ?? 0) : asked;
      return [unit, wanted === undefined ? most : Math.min(most ?? 0, wanted)];
    }),
  );
}

/** The credits held on admission for a root field: the most this request can cost. */
export function reservationFor(op: OperationSpec, args: Record<string, unknown> = {}, bound = unitsBound(op, args)): number {
  return op.billing.minimumCredits + priceOf(bound);
}

/** Whether an operation's data is one object (a lookup, an edit history) rather than a list of items. */
const singleResults = new WeakMap<OperationSpec, boolean>();
function singleResult(op: OperationSpec): boolean {
  let single = singleResults.get(op);
  if (single === undefined) singleResults.set(op, (single = def(unwrap(op.output).base).type !== 'array'));
  return single;
}

/**
 * Units the operation's result can hold at most, per unit it returns: an object result holds one, a list or a
 * member its bound. Lookup units (resolving `{user}`) are not part of the result.
 */
export function returnedBound(
  op: OperationSpec,
  args: Record<string, unknown>,
  bound = unitsBound(op, args),
): { units: Partial<Record<BillingUnit, number>>; items: number; members?: Record<string, number> } {
  const single = singleResult(op);
  const units: Partial<Record<BillingUnit, number>> = {};
  const members: Record<string, number> = {};
  let items = 0;
  let listed = false;
  let named = false;
  for (const [unit, source] of Object.entries(op.billing.returns ?? {}) as [BillingUnit, string][]) {
    const most = source === 'data' && single ? 1 : (bound[unit] ?? 0);
    units[unit] = (units[unit] ?? 0) + most;
    if (source === 'data') {
      items += most;
      listed = true;
    } else {
      members[source] = most;
      named = true;
    }
  }
  return { units, items: listed ? items : 1, ...(named ? { members } : {}) };
}

const FREE_FIELD: FieldCost = { credits: 0, items: 1 };

/** A root field's worst case: its reservation, and the bound of what it returns. */
export function rootFieldCost(op: OperationSpec): FieldCostOf {
  if (op.billing.minimumCredits === 0 && !op.billing.returns) return fixedCost(FREE_FIELD);
  const costAt = (args: Record<string, unknown>): FieldCost => {
    const bound = unitsBound(op, args);
    const { items, members } = returnedBound(op, args, bound);
    return { credits: reservationFor(op, args, bound), items, ...(members ? { members } : {}) };
  };
  return ASKING_INPUTS.some((input) => input.has(op)) ? costAt : fixedCost(costAt({}));
}

/**
 * An edge's worst case: what the operation it walks returns, at the same unit prices, without the operation's
 * minimum (the root field pays that once) or its lookups (the parent is already known).
 */
export function edgeCost(op: OperationSpec, fixed: Record<string, unknown> = {}): FieldCostOf {
  return (args) => {
    const { units, items, members } = returnedBound(op, { ...args, ...fixed });
    return { credits: priceOf(units), items, ...(members ? { members } : {}) };
  };
}

/**
 * The most items a page of a paginated operation without a `limit` may hold: the bound its worst case is priced on.
 * Undefined for other operations (a `limit` bounds their pages).
 */
export function pageBound(op: OperationSpec): number | undefined {
  return op.paginated && !('limit' in op.input.shape) ? returnedBound(op, {}).items : undefined;
}

/** An edge's price in words, from the catalogue, for its description: per unit, and at most per parent. */
export function edgePriceText(op: OperationSpec, fixed: Record<string, unknown> = {}): string {
  // A limit no request can give stands for the largest one the operation allows.
  const { units } = returnedBound(op, { ...fixed, limit: Number.POSITIVE_INFINITY });
  const parts = (Object.entries(units) as [BillingUnit, number][]).filter(([, most]) => most > 0).map(([unit, most]) => {
    const price = UNIT_PRICES[unit];
    const each = `${price} credit${price === 1 ? '' : 's'} per ${unit.replace('_', ' ')} returned`;
    return most > 1 ? `${each}, at most ${most} (${price * most} credits) per parent` : each;
  });
  return `Billed as ${op.operationId} bills what it returns: ${parts.join('; ')}.`;
}
