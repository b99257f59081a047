import { z } from 'zod';
import { def, idOf } from '../zod-shape.ts';
import { TruncationShape } from '../../adapters/shapes/paging-shapes.ts';

/** How the GraphQL payload of a root field maps to the REST/MCP `{data, meta}` envelope. */
export interface ResultMapping {
  /** Name of the payload type; default: the item type's name plus `Page` (paginated) or `Lookup` (with `notFound`). */
  name?: string;
  description?: string;
  /** When set, `data` is this member of the payload; otherwise the whole payload minus the meta members. */
  dataField?: string;
  /** Payload members lifted into `meta`, with their shapes; a null value is omitted unless listed in `metaAlways`. */
  meta: Record<string, z.ZodType>;
  /** Meta members that are always present, even when null (e.g. `nextCursor`). */
  metaAlways?: readonly string[];
}

export const NEXT_CURSOR = z
  .string()
  .min(1)
  .max(4096)
  .nullable()
  .describe('Cursor of the next page: send it back unchanged for the next page; null is the only end.');

export const TRUNCATED = TruncationShape.nullable().describe(
  'Present when the platform capped or stalled the walk: this page is its last (nextCursor null), though the platform holds more. Absent when the walk ended normally.',
);

export const OMITTED_NSFW = z
  .int()
  .min(0)
  .nullable()
  .describe('Items removed from this page as NSFW because includeNsfw is false; null (absent from meta) when none were.');

export const NOT_FOUND = z
  .array(z.string())
  .describe('Ids asked for that came back empty (deleted, suspended, protected, withheld or never existed), in request order. Not billed.');

export const MISSING = z
  .array(z.string())
  .describe('Items asked for and not returned, as `t3_<id>`, `t1_<id>` or `r/<name>`: deleted, nonexistent or not publicly readable. Not billed.');

type MetaOf<R> = R extends { meta: infer M extends Record<string, z.ZodType> } ? { [K in keyof M]: z.output<M[K]> } : unknown;

/** What a resolver returns for an operation: the output, or the wrapper its result mapping describes. */
export type PayloadOf<Output extends z.ZodType, R> = R extends { dataField: infer D extends string }
  ? { [K in D]: z.output<Output> } & MetaOf<R>
  : R extends ResultMapping
    ? z.output<Output> & MetaOf<R>
    : z.output<Output>;

/** A page of items with its cursor (and any further meta members, such as `omittedNsfw`). */
export function page<const Extra extends Record<string, z.ZodType> = {}>(extra: Extra = {} as Extra) {
  return { dataField: 'items', meta: { nextCursor: NEXT_CURSOR, truncated: TRUNCATED, ...extra }, metaAlways: ['nextCursor'] } as const satisfies ResultMapping;
}

/** Items looked up by id, with the ids that came back empty. */
export const LOOKUP = { dataField: 'items', meta: { notFound: NOT_FOUND }, metaAlways: ['notFound'] } as const satisfies ResultMapping;

/** The item shape's registered name: the element's for a list. */
function itemName(output: z.ZodType): string | undefined {
  const d = def(output);
  return d.type === 'array' ? idOf(d.element as z.ZodType) : idOf(output);
}

const DESCRIPTIONS = {
  Page: (item: string) => `One page of ${item} items, with the cursor of the next.`,
  Lookup: (item: string) => `${item} items looked up by id, with the ids that came back empty.`,
  Payload: (item: string) => `${item} with its meta members.`,
};

const payloads = new Map<string, z.ZodType>();

/**
 * The GraphQL payload of an operation: its output itself, or the wrapper its result mapping describes. Wrappers
 * are named (`ForumPostPage`, `MicroblogProfileLookup`, …) and shared by every operation returning the same one.
 */
export function payloadOf(output: z.ZodType, result: ResultMapping | undefined): z.ZodType {
  if (!result) return output;
  const suffix = 'nextCursor' in result.meta ? 'Page' : 'notFound' in result.meta ? 'Lookup' : 'Payload';
  const name = result.name ?? `${itemName(output) ?? 'Result'}${suffix}`;
  const existing = payloads.get(name);
  if (existing) return existing;
  const base = result.dataField
    ? z.object({ [result.dataField]: output.describe(suffix === 'Lookup' ? 'Items found, in request order.' : 'Items of this page.') })
    : (output as z.ZodObject);
  const shape = base
    .extend(result.meta)
    .meta({ id: name })
    .describe(result.description ?? DESCRIPTIONS[suffix](itemName(output) ?? 'item'));
  payloads.set(name, shape);
  return shape;
}
