import SchemaBuilder from '@pothos/core';
import ValidationPlugin from '@pothos/plugin-validation';
import { JSONResolver } from 'graphql-scalars';
import { ServiceError } from '../core/error-catalogue.ts';
import type { RequestContext } from '../core/request-context.ts';
import { DateTimeScalar } from './date-time-scalar.ts';

interface ValidationIssue {
  message: string;
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
  /** zod's `unrecognized_keys`: members a strict object (a monitor's target) does not know, named under its path. */
  code?: string;
  keys?: readonly string[];
}

function issuePath(issue: ValidationIssue): string {
  return (issue.path ?? []).map((segment) => String(typeof segment === 'object' ? segment.key : segment)).join('.');
}

/** One field per issue; an unknown member is named itself (`target.keyword`), as REST names an unknown body member. */
function issueFields(issue: ValidationIssue): { field: string; message: string }[] {
  const path = issuePath(issue);
  if (issue.code !== 'unrecognized_keys' || !issue.keys?.length) return [{ field: path, message: issue.message }];
  return issue.keys.map((key) => ({ field: path ? `${path}.${key}` : key, message: 'unknown member' }));
}

/**
 * Turns a zod (standard schema) failure into the catalogue's 400 whose `details` names each field; `at` is the
 * response path of a walked edge whose arguments failed (`details.path`).
 */
export function validationFailure(issues: readonly ValidationIssue[], at?: string): ServiceError {
  const fields = issues.flatMap(issueFields);
  const first = fields[0];
  return new ServiceError('invalid_request', {
    // An issue of the arguments as a whole (an empty change) names no field: its message says what is missing.
    message: first?.field ? `Invalid value for '${first.field}'${at ? ` at '${at}'` : ''}: ${first.message}` : (first?.message ?? 'The request failed validation.'),
    details: { field: first?.field || null, ...(at ? { path: at } : {}), issues: fields },
  });
}

export const builder = new SchemaBuilder<{
  Context: RequestContext;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}>({
  plugins: [ValidationPlugin],
  defaultFieldNullability: false,
  validation: {
    validationError: (result) => validationFailure(result.issues as readonly ValidationIssue[]),
  },
});

builder.addScalarType('DateTime', DateTimeScalar);
builder.addScalarType('JSON', JSONResolver);
builder.queryType({ description: 'Read operations over both platforms, account and system state.' });
builder.mutationType({ description: 'Changes to the account’s monitors and webhooks.' });

/** The builder's schema types, for typing object refs built outside a type file. */
export type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;
