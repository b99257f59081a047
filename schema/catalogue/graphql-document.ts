import type { z } from 'zod';
import { argumentTypeOf, selectionOf } from '../zod-shape.ts';

/** `String!`, `[String!]`: a variable type that fits the argument GraphQL declares for an input member. */
function variableType(schema: z.ZodType): string {
  const { type, required } = argumentTypeOf(schema);
  const named = Array.isArray(type) ? `[${type[0]}!]` : type;
  return required ? `${named}!` : named;
}

/**
 * The document the REST and MCP bridges execute for an operation: every input member declared as a variable and
 * passed to the root field, and every field of the payload selected.
 */
export function documentFor(operationId: string, graphql: { kind: 'query' | 'mutation'; field: string }, input: z.ZodObject, payload: z.ZodType): string {
  const names = Object.keys(input.shape);
  const variables = names.map((name) => `$${name}: ${variableType(input.shape[name] as z.ZodType)}`).join(', ');
  const args = names.map((name) => `${name}: $${name}`).join(', ');
  const selection = selectionOf(payload);
  return `${graphql.kind} ${operationId}${variables ? `(${variables})` : ''} { ${graphql.field}${args ? `(${args})` : ''}${selection ? ` ${selection}` : ''} }`;
}
