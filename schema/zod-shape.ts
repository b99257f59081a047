import { z } from 'zod';

/** Reading zod schemas as data: what the GraphQL types, the generated documents and the REST bridge derive from. */

type AnyZod = z.ZodType;

export interface Unwrapped {
  base: AnyZod;
  nullable: boolean;
  optional: boolean;
  description?: string;
}

/** A zod schema's definition: its kind (`type`) and parts (`innerType`, `element`, …). */
export function def(schema: AnyZod): { type: string; [key: string]: unknown } {
  return (schema as unknown as { _zod: { def: { type: string } } })._zod.def;
}

export function describeOf(schema: AnyZod): string | undefined {
  return z.globalRegistry.get(schema)?.description ?? (schema as { description?: string }).description;
}

/** A shape's registered name (`.meta({ id })`), also through the copies `.describe()` makes of it. */
export function idOf(schema: AnyZod): string | undefined {
  for (let current: AnyZod | undefined = schema; current; current = (current as unknown as { _zod: { parent?: AnyZod } })._zod.parent) {
    const id = z.globalRegistry.get(current)?.id;
    if (typeof id === 'string') return id;
  }
  return undefined;
}

/** Strips nullable/optional/default wrappers, remembering what they said. */
export function unwrap(schema: AnyZod): Unwrapped {
  let current = schema;
  let nullable = false;
  let optional = false;
  let description = describeOf(schema);
  for (;;) {
    const d = def(current);
    if (d.type === 'nullable') nullable = true;
    else if (d.type === 'optional' || d.type === 'default' || d.type === 'prefault') optional = true;
    else if (d.type !== 'readonly' && d.type !== 'catch') break;
    current = d.innerType as AnyZod;
    description ??= describeOf(current);
  }
  return { base: current, nullable, optional, description };
}

export type ScalarName = 'String' | 'Int' | 'Float' | 'Boolean' | 'DateTime' | 'JSON';

/** The GraphQL scalar a zod leaf maps to; undefined for objects, arrays and other composites. */
export function scalarFor(base: AnyZod): ScalarName | undefined {
  const type = def(base).type;
  if (type === 'string' || type === 'enum' || type === 'literal') {
    return (base as { format?: string | null }).format === 'datetime' ? 'DateTime' : 'String';
  }
  if (type === 'number') return (base as { isInt?: boolean }).isInt === true ? 'Int' : 'Float';
  if (type === 'boolean') return 'Boolean';
  if (type === 'record' || type === 'unknown' || type === 'any') return 'JSON';
  return undefined;
}

/** A GraphQL argument for a catalogue input member: its type (a list holds scalars) and whether it is required. */
export interface ArgumentType {
  type: Exclude<ScalarName, 'DateTime'> | [Exclude<ScalarName, 'DateTime'>];
  required: boolean;
  description?: string;
}

/**
 * Arguments are typed loosely on purpose (objects as JSON, date-times as strings): zod checks every value, so a bad
 * one is reported with its field name rather than by GraphQL's coercion.
 */
export function argumentTypeOf(schema: AnyZod): ArgumentType {
  const field = unwrap(schema);
  const d = def(field.base);
  const leaf = (base: AnyZod) => {
    const scalar = scalarFor(base) ?? 'JSON';
    return scalar === 'DateTime' ? 'String' : scalar;
  };
  let type: ArgumentType['type'];
  if (d.type === 'array') type = [leaf(unwrap(d.element as AnyZod).base)];
  else if (d.type === 'object') type = 'JSON';
  else type = leaf(field.base);
  return { type, required: !(field.optional || field.nullable), description: field.description };
}

/** The selection of every field of a shape, nested shapes included (lists select their items' fields). */
export function selectionOf(schema: AnyZod): string {
  let { base } = unwrap(schema);
  if (def(base).type === 'array') base = unwrap(def(base).element as AnyZod).base;
  if (def(base).type !== 'object') return '';
  const parts = Object.entries((base as z.ZodObject).shape).map(([name, fieldSchema]) => {
    const nested = selectionOf(fieldSchema as AnyZod);
    return nested ? `${name} ${nested}` : name;
  });
  return `{ ${parts.join(' ')} }`;
}
