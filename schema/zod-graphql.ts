import { defaultFieldResolver } from 'graphql';
import { z } from 'zod';
import type { ObjectRef } from '@pothos/core';
import { builder, type BuilderTypes } from './builder.ts';
import { argumentTypeOf, def, describeOf, idOf, scalarFor, selectionOf, unwrap } from './zod-shape.ts';

/**
 * Builds GraphQL types from the zod shapes, so every resource is described once: the shape feeds the
 * GraphQL type, the OpenAPI document and the mapper tests alike.
 */

type AnyZod = z.ZodType;

function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

type TypeParam = ObjectRef<BuilderTypes, unknown> | 'String' | 'Int' | 'Float' | 'Boolean' | 'DateTime' | 'JSON';
interface OutputType {
  type: TypeParam | [TypeParam];
  itemNullable: boolean;
}

const objectTypes = new WeakMap<object, ObjectRef<BuilderTypes, unknown>>();
/** By name too: a described copy of a named shape is the same type. */
const objectTypesByName = new Map<string, ObjectRef<BuilderTypes, unknown>>();
/** `<Type>Fields` fragments of every shape-built type, for the catalogue's documents. */
const fragments = new Map<string, string>();

export function outputTypeOf(schema: AnyZod, nameHint: string): OutputType {
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
  const typeName = idOf(schema) ?? name;
  const named = objectTypesByName.get(typeName);
  if (named) return named as unknown as ObjectRef<BuilderTypes, T>;
  const ref = builder.objectRef<Record<string, unknown>>(typeName);
  objectTypes.set(schema, ref as unknown as ObjectRef<BuilderTypes, unknown>);
  objectTypesByName.set(typeName, ref as unknown as ObjectRef<BuilderTypes, unknown>);
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
              // graphql's own property read, which Pothos builds as no resolver at all: graphql-jit then reads the
              // property inline instead of calling a resolver with its own resolve info for every field of every item.
              resolve: defaultFieldResolver as never,
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
      const { type, required, description } = argumentTypeOf(schema as AnyZod);
      return [name, t.arg({ type: type as never, required, description }) as never];
    }),
  );
}

/** Generated fragment `…<Type>Fields` selecting every field of a shape, nested shapes included. */
export function fragmentFromZod(typeName: string, schema: z.ZodObject): string {
  return `fragment ${typeName}Fields on ${typeName} ${selectionOf(schema)}`;
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
