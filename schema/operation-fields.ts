import type { GraphQLResolveInfo } from 'graphql';
import { z } from 'zod';
import { isStorable } from '../adapters/db/storable-text.ts';
import { itemsIn } from '../core/meter.ts';
import type { RequestContext } from '../core/request-context.ts';
import { builder } from './builder.ts';
import type { BillingUnit, OperationSpec, UnitSource } from './catalogue/operation.ts';
import { PAGE_BOUND } from '../core/page.ts';
import { FIELD_COST, pageBound, rootFieldCost } from './catalogue/worst-case.ts';
import { argsFromZod, outputTypeOf } from './zod-graphql.ts';
import { unwrap } from './zod-shape.ts';

/**
 * The operation's input schema, reading an explicit null for an optional argument as the argument's absence:
 * GraphQL declares such arguments nullable, so `cursor: null` (or a null variable) is a valid way to omit them.
 * Built once per input, with or without the refusal of unstorable text (storesText).
 */
const argumentSchemas = { read: new WeakMap<z.ZodObject, z.ZodType>(), stored: new WeakMap<z.ZodObject, z.ZodType>() };

/** The field extension a walk edge keeps its argument schema in, so the pipeline can check it before execution. */
export const ARGUMENT_SCHEMA = 'argumentSchema';

/**
 * The schema a field's GraphQL arguments are validated with, built once per input. `stored`: its strings may be
 * written to the database, which refuses U+0000 and lone surrogates (storesText).
 */
export function argumentSchemaOf(input: z.ZodObject, stored = false): z.ZodType {
  const schemas = stored ? argumentSchemas.stored : argumentSchemas.read;
  let schema = schemas.get(input);
  if (!schema) schemas.set(input, (schema = stored ? refusingUnstorable(nullMeansAbsent(input)) : nullMeansAbsent(input)));
  return schema;
}

/**
 * Whether an operation's string inputs may be stored: its mutations (monitors, webhooks). Reads store nothing, and
 * their strings reach the database only checked (ids are uuids, cursors are signed), so they skip the scan: it
 * walks every argument, twice a call (the policy's check and Pothos'), 0.5-1.3 µs each time.
 */
function storesText(op: OperationSpec): boolean {
  return op.graphql.kind === 'mutation';
}

/** An operation's argument schema (argumentSchemaOf), refusing unstorable text where it stores text. */
export function operationArgumentSchema(op: OperationSpec): z.ZodType {
  return argumentSchemaOf(op.input, storesText(op));
}

/** Where a value holds a string the database cannot store as it is (isStorable), as paths into it. */
function unstorablePaths(value: unknown, path: PropertyKey[] = []): [PropertyKey[], string][] {
  if (typeof value === 'string') return isStorable(value) ? [] : [[path, value]];
  if (Array.isArray(value)) return value.flatMap((item, index) => unstorablePaths(item, [...path, index]));
  if (value && typeof value === 'object' && !(value instanceof Date)) return Object.entries(value).flatMap(([key, item]) => unstorablePaths(item, [...path, key]));
  return [];
}

function nullMeansAbsent(input: z.ZodObject) {
  const optional = Object.entries(input.shape as Record<string, z.ZodType>)
    .filter(([, schema]) => !unwrap(schema).nullable)
    .map(([name]) => name);
  return z.preprocess((value) => {
    if (!value || typeof value !== 'object') return value;
    const args = { ...(value as Record<string, unknown>) };
    for (const name of optional) if (args[name] === null) delete args[name];
    return args;
  }, input);
}

/**
 * PostgreSQL (and PGlite) refuse U+0000 in text, and a lone surrogate (JSON's `"\udc00"`) in `jsonb`, so a stored
 * string holding either would fail at the insert as a 500, for a request that can never succeed: it is a 400 naming
 * the member, on every surface.
 */
function refusingUnstorable(schema: z.ZodType) {
  return schema.superRefine((args, ctx) => {
    for (const [path, text] of unstorablePaths(args)) {
      const message = text.includes('\u0000') ? 'must not contain the NUL character (U+0000)' : 'must not contain a lone surrogate (U+D800 to U+DFFF without its pair): it is not Unicode text';
      ctx.addIssue({ code: 'custom', path, message });
    }
  });
}

/** The data of a payload: its `dataField` member, or the payload itself. */
function dataOf(dataField: string | undefined, payload: unknown): unknown {
  return dataField && payload && typeof payload === 'object' ? (payload as Record<string, unknown>)[dataField] : payload;
}

/**
 * Counts the units a result holds, where the catalogue says they are (`returns`): the one place that does, for
 * root fields and the edges walked below them alike.
 */
export function meterReturned(
  returns: Partial<Record<BillingUnit, UnitSource>>,
  dataField: string | undefined,
  payload: unknown,
  ctx: RequestContext,
  info: GraphQLResolveInfo,
): void {
  const data = dataOf(dataField, payload);
  for (const [unit, source] of Object.entries(returns) as [BillingUnit, string][]) {
    const value = source === 'data' ? data : (data as Record<string, unknown> | null | undefined)?.[source];
    ctx.meter.add(info, unit, itemsIn(value));
  }
}

/**
 * Registers the GraphQL root field of a catalogue operation: its arguments and their validation come from the
 * catalogue's zod input, its type from the payload shape, and the units it returns are metered here.
 */
function operationField(op: OperationSpec): void {
  const register = op.graphql.kind === 'query' ? builder.queryField.bind(builder) : builder.mutationField.bind(builder);
  const { type } = outputTypeOf(op.payload, op.operationId);
  register(op.graphql.field, (t) => {
    const args = argsFromZod(t as never, op.input);
    return t.field({
      // The payload's type is built from its zod shape at runtime; the catalogue types the resolver's arguments.
      type: type as never,
      // Root fields are nullable so that one failing field of a multi-field request leaves the others' data
      // (and their billing) intact; REST and MCP report the error of their single field instead.
      nullable: true as never,
      description: op.description,
      extensions: { [FIELD_COST]: rootFieldCost(op), [PAGE_BOUND]: pageBound(op) },
      // Pothos refuses to validate an empty argument list; operations without input have nothing to validate.
      args: (Object.keys(args).length ? t.validate(args, operationArgumentSchema(op) as never) : {}) as never,
      resolve: async (_root, args, ctx, info) => {
        const payload = await op.resolve(args as z.output<typeof op.input>, ctx, info);
        meterReturned(op.billing.returns ?? {}, op.result?.dataField, payload, ctx, info);
        return payload as never;
      },
    });
  });
}

export function registerOperations(operations: readonly OperationSpec[]): void {
  for (const op of operations) operationField(op);
}
