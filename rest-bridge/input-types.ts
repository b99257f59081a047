import type { z } from 'zod';
import { ServiceError } from '../core/error-catalogue.ts';
import { def, unwrap } from '../schema/zod-shape.ts';

/** Each member's expected JSON type, read once per schema: reading it walks zod's wrappers and registry on every call. */
const expectedTypes = new WeakMap<z.ZodType, string | undefined>();

/** What a member of this shape must be in JSON, or undefined when the shape takes any JSON value. */
function expectedType(schema: z.ZodType): string | undefined {
  if (!expectedTypes.has(schema)) expectedTypes.set(schema, readExpectedType(schema));
  return expectedTypes.get(schema);
}

function readExpectedType(schema: z.ZodType): string | undefined {
  const { base } = unwrap(schema);
  switch (def(base).type) {
    case 'string':
    case 'enum':
      return 'string';
    case 'number':
      return (base as { isInt?: boolean }).isInt ? 'integer' : 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return 'array';
    case 'object':
      return 'object';
    default:
      return undefined;
  }
}

function matches(expected: string, value: unknown): boolean {
  switch (expected) {
    case 'integer':
      return Number.isInteger(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default:
      return typeof value === expected;
  }
}

function mismatch(field: string, expected: string, value: unknown): ServiceError {
  const got = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return new ServiceError('invalid_request', { message: `'${field}' must be ${expected === 'integer' ? 'an integer' : `a${/^[aeiou]/.test(expected) ? 'n' : ''} ${expected}`}, got ${got}.`, details: { field, expected, got } });
}

/**
 * JSON types of the REST input, checked against the operation's zod input before GraphQL sees them: GraphQL
 * would otherwise turn a single value into a one-element list, and its coercion errors do not name the field.
 * Bounds and patterns are left to the pipeline's validation, which runs after authentication.
 */
export function checkJsonTypes(input: z.ZodObject, variables: Record<string, unknown>): void {
  const shape = input.shape as Record<string, z.ZodType>;
  for (const [name, value] of Object.entries(variables)) {
    const schema = shape[name];
    if (!schema || value === undefined) continue;
    if (value === null) {
      // null stands for "absent" on optional members; a required one must have a value.
      const member = unwrap(schema);
      if (!member.optional && !member.nullable) throw mismatch(name, expectedType(schema) ?? 'value', value);
      continue;
    }
    const expected = expectedType(schema);
    if (!expected) continue;
    if (!matches(expected, value)) throw mismatch(name, expected, value);
    if (expected === 'array') {
      const item = unwrap(def(unwrap(schema).base).element as z.ZodType);
      const itemType = expectedType(item.base);
      (value as unknown[]).forEach((element, index) => {
        if (itemType && !(element === null && item.nullable) && !matches(itemType, element)) throw mismatch(`${name}[${index}]`, itemType, element);
      });
    }
  }
}
