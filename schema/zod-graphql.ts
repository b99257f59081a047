import { z } from 'zod';
import type { ObjectRef } from '@pothos/core';
import { builder, type BuilderTypes } from './builder.ts';

/**
 * Builds GraphQL types from the zod shapes, so every resource is described once: the shape feeds the
 * GraphQL type, the OpenAPI document and the mapper tests alike.
 */

type AnyZod = z.ZodType;

interface Unwrapped {
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

function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

function isInt(schema: AnyZod): boolean {
  return (schema as { isInt?: boolean }).isInt === true;
}

function isDateTime(schema: AnyZod): boolean {
  return (schema as { format?: string | null }).format === 'datetime';
}

type TypeParam = ObjectRef<BuilderTypes, unknown> | 'String' | 'Int' | 'Float' | 'Boolean' | 'DateTime' | 'JSON';
interface OutputType {
  type: TypeParam | [TypeParam];
  itemNullable: boolean;
}

const objectTypes = new WeakMap<object, ObjectRef<BuilderTypes, unknown>>();
/** `<Type>Fields` fragments of every shape-built type, for the catalogue's documents. */
const fragments = new Map<string, string>();

function scalarFor(base: AnyZod): TypeParam | undefined {
  const type = def(base).type;
  if (type === 'string' || type === 'enum' || type === 'literal') return isDateTime(base) ? 'DateTime' : 'String';
  if (type === 'number') return isInt(base) ? 'Int' : 'Float';
  if (type === 'boolean') return 'Boolean';
  if (type === 'record' || type === 'unknown' || type === 'any') return 'JSON';
  return undefined;
}

function outputTypeOf(schema: AnyZod, nameHint: string): OutputType {
  const { base } = unwrap(schema);
  const d = def(base);
  if (d.type === 'array') {
    const item = unwrap(d.element as AnyZod);
    const inner = outputTypeOf(item.base, nameHint);
    return { type: [inner.type as TypeParam], itemNullable: item.nullable };
  }
  if (d.type === 'object') return { type: objectTypeFromZod(nameHint, base as z.ZodObject), itemNullable: false };
  const scalar = scalarFor(base);
  if (scalar) return { type: scalar, itemNullable: false };
  // Unions and other composite shapes are passed through as JSON rather than silently dropped.
  return { type: 'JSON', itemNullable: false };
}

/**
 * The GraphQL object type for a zod object shape. Nested object shapes become their own types, named by
 * their `.meta({ id })` or by parent and field name; the same zod object always maps to the same type.
 */
export function objectTypeFromZod<T = unknown>(
  name: string,
  schema: z.ZodObject,
  description?: string,
): ObjectRef<BuilderTypes, T> {
  const existing = objectTypes.get(schema);
  if (existing) return existing as unknown as ObjectRef<BuilderTypes, T>;
  const typeName = (z.globalRegistry.get(schema)?.id as string | undefined) ?? name;
  const ref = builder.objectRef<Record<string, unknown>>(typeName);
  objectTypes.set(schema, ref as unknown as ObjectRef<BuilderTypes, unknown>);
  fragments.set(`${typeName}Fields`, fragmentFromZod(typeName, schema));
  builder.objectType(ref, {
    description: description ?? describeOf(schema) ?? `${typeName}.`,
    fields: (t) =>
      Object.fromEntries(
        Object.entries(schema.shape).map(([fieldName, fieldSchema]) => {
          const field = unwrap(fieldSchema as AnyZod);
          const output = outputTypeOf(fieldSchema as AnyZod, `${typeName}${pascal(fieldName)}`);
          const nullable = Array.isArray(output.type)
            ? { list: field.nullable || field.optional, items: output.itemNullable }
            : field.nullable || field.optional;
          return [
            fieldName,
            t.field({
              // Pothos' type parameter is precise per field; the shapes are checked by the mapper tests instead.
              type: output.type as never,
              nullable: nullable as never,
              description: field.description ?? fieldName,
              resolve: (parent) => (parent as Record<string, unknown>)[fieldName] as never,
            }),
          ];
        }),
      ),
  });
  return ref as unknown as ObjectRef<BuilderTypes, T>;
}

type ArgBuilder = {
  arg: (options: { type: never; required: boolean; description?: string }) => unknown;
};

/** GraphQL arguments for a catalogue input: types from the shape, every bound checked by zod itself. */
export function argsFromZod(t: ArgBuilder, input: z.ZodObject): Record<string, never> {
  return Object.fromEntries(
    Object.entries(input.shape).map(([name, schema]) => {
      const field = unwrap(schema as AnyZod);
      const d = def(field.base);
      let type: TypeParam | [TypeParam];
      if (d.type === 'array') {
        const item = scalarFor(unwrap(d.element as AnyZod).base) ?? 'JSON';
        type = [item];
      } else if (d.type === 'object') {
        type = 'JSON';
      } else {
        // DateTime inputs are taken as strings so zod (not the scalar) reports a bad value with its field name.
        const scalar = scalarFor(field.base) ?? 'JSON';
        type = scalar === 'DateTime' ? 'String' : scalar;
      }
      return [
        name,
        t.arg({ type: type as never, required: !(field.optional || field.nullable), description: field.description }) as never,
      ];
    }),
  );
}

/** Generated fragment `…<Type>Fields` selecting every field of a shape, nested shapes included. */
export function fragmentFromZod(typeName: string, schema: z.ZodObject): string {
  return `fragment ${typeName}Fields on ${typeName} ${selectionOf(schema)}`;
}

export function selectionOf(schema: z.ZodObject): string {
  const parts = Object.entries(schema.shape).map(([name, fieldSchema]) => {
    let { base } = unwrap(fieldSchema as AnyZod);
    if (def(base).type === 'array') base = unwrap(def(base).element as AnyZod).base;
    return def(base).type === 'object' ? `${name} ${selectionOf(base as z.ZodObject)}` : name;
  });
  return `{ ${parts.join(' ')} }`;
}

const SPREAD = /\.\.\.([A-Za-z0-9_]+Fields)\b/g;

/** A catalogue document with the generated fragments it spreads appended. */
export function withFragments(document: string): string {
  const names = new Set([...document.matchAll(SPREAD)].map((match) => match[1]));
  const parts = [document];
  for (const name of names) {
    const fragment = fragments.get(name);
    if (!fragment) throw new Error(`Unknown fragment ${name} in catalogue document`);
    parts.push(fragment);
  }
  return parts.join('\n');
}
