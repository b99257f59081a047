import type { z } from 'zod';
import type { OperationSpec } from '../schema/catalogue/operation.ts';
import { ServiceError } from '../core/error-catalogue.ts';
import { def, unwrap } from '../schema/zod-shape.ts';
import { checkJsonTypes } from './input-types.ts';

const NUMBER = /^-?\d+(\.\d+)?$/;

/** Query-string values are text: numbers and booleans the operation expects are read as such. */
function coerceQueryValue(schema: z.ZodType, value: string): unknown {
  const type = def(unwrap(schema).base).type;
  if (type === 'number' && NUMBER.test(value)) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function unknownField(field: string, where: string): ServiceError {
  return new ServiceError('invalid_request', { message: `Unknown ${where} parameter '${field}'.`, details: { field } });
}

/**
 * GraphQL variables for an operation from the path, query string and JSON body. Unknown members are
 * refused by name rather than silently ignored, so a typo never changes what a paid call returns.
 */
export function variablesFor(
  op: OperationSpec,
  params: Record<string, string>,
  query: URLSearchParams | undefined,
  body: unknown,
): Record<string, unknown> {
  const shape = op.input.shape as Record<string, z.ZodType>;
  const variables: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(params)) {
    try {
      variables[name] = decodeURIComponent(raw);
    } catch {
      throw new ServiceError('invalid_request', { message: `Path parameter '${name}' is not valid URL encoding.`, details: { field: name } });
    }
  }
  const takesBody = op.rest.method !== 'GET' && op.rest.method !== 'DELETE';
  // No query string, no URLSearchParams: the bridge builds one only for a request that sent one.
  if (query) {
    for (const name of new Set(query.keys())) {
      if (!(name in shape) || name in params || takesBody) throw unknownField(name, 'query');
      const values = query.getAll(name);
      if (values.length > 1) {
        throw new ServiceError('invalid_request', { message: `Query parameter '${name}' was given more than once.`, details: { field: name } });
      }
      variables[name] = coerceQueryValue(shape[name], values[0]);
    }
  }
  if (body !== undefined) {
    if (!takesBody) throw new ServiceError('invalid_request', { message: 'This operation takes no request body.', details: { field: 'body' } });
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new ServiceError('invalid_request', { message: 'The request body must be a JSON object.', details: { field: 'body' } });
    }
    for (const [name, value] of Object.entries(body)) {
      if (!(name in shape) || name in params) throw unknownField(name, 'body');
      variables[name] = value;
    }
  }
  checkJsonTypes(op.input, variables);
  return variables;
}
