import type { ExecutionResult, GraphQLError } from 'graphql';
import type { OperationSpec } from './catalogue/operation.ts';
import { ERROR_CATALOGUE, isRetryable, type ErrorCode } from '../core/error-catalogue.ts';

export interface ErrorBody {
  error: { code: string; message: string; retryable: boolean; details?: Record<string, unknown> };
  meta: { requestId: string };
}

export interface EnvelopeResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  isError: boolean;
}

export function errorEnvelope(requestId: string, code: ErrorCode, message?: string, details?: Record<string, unknown>): EnvelopeResponse {
  const entry = ERROR_CATALOGUE[code];
  return {
    status: entry.status,
    headers: {},
    isError: true,
    body: {
      error: { code, message: message ?? entry.message, retryable: isRetryable(code, details), ...(details ? { details } : {}) },
      meta: { requestId },
    } satisfies ErrorBody,
  };
}

/** A refusal on `/graphql` made before yoga ran, in the GraphQL response shape clients of that path expect. */
export function graphqlErrorResponse(code: ErrorCode, message?: string, details?: Record<string, unknown>): EnvelopeResponse {
  const entry = ERROR_CATALOGUE[code];
  const extensions = { code, retryable: isRetryable(code, details), ...(details ? { details } : {}) };
  return { status: entry.status, headers: {}, isError: true, body: { errors: [{ message: message ?? entry.message, extensions }] } };
}

/** The envelope of an error already mapped onto the catalogue. */
export function envelopeOfError(requestId: string, error: GraphQLError): EnvelopeResponse {
  const ext = (error.extensions ?? {}) as { code?: string; retryable?: boolean; http?: { status?: number; headers?: Record<string, string> }; details?: Record<string, unknown> };
  const code = (ext.code && ext.code in ERROR_CATALOGUE ? ext.code : 'internal_error') as ErrorCode;
  const envelope = errorEnvelope(requestId, code, error.message, ext.details);
  return { ...envelope, status: ext.http?.status ?? envelope.status, headers: { ...(ext.http?.headers ?? {}) } };
}

/**
 * Maps a catalogue operation's GraphQL result onto the REST/MCP envelope: `{data, meta}` with the
 * operation's meta members lifted out of the payload, or `{error, meta}` with the catalogue status.
 */
export function toEnvelope(op: OperationSpec, result: ExecutionResult, requestId: string): EnvelopeResponse {
  const firstError = result.errors?.[0];
  if (firstError) return envelopeOfError(requestId, firstError);
  const flags = pipelineMeta(result);
  if (flags.dryRun) return { status: 200, headers: {}, body: { data: null, meta: { requestId, ...flags } }, isError: false };
  const payload = (result.data as Record<string, unknown> | null | undefined)?.[op.graphql.field];
  if (op.rest.envelope === false) {
    return { status: op.rest.statusFromData?.(payload) ?? 200, headers: {}, body: payload, isError: false };
  }
  const mapping = op.result;
  const meta: Record<string, unknown> = { requestId };
  let data: unknown = payload;
  if (mapping && payload && typeof payload === 'object') {
    const rest = { ...(payload as Record<string, unknown>) };
    for (const member of Object.keys(mapping.meta)) {
      const value = rest[member];
      delete rest[member];
      if (value !== null && value !== undefined) meta[member] = value;
      else if (mapping.metaAlways?.includes(member)) meta[member] = null;
    }
    data = mapping.dataField ? rest[mapping.dataField] : rest;
  }
  return { status: op.rest.successStatus ?? 200, headers: {}, body: { data, meta: Object.assign(meta, flags) }, isError: false };
}

/** What the pipeline reports about the call itself (GraphQL `extensions`), lifted into `meta` on REST and MCP. */
export const PIPELINE_META = ['dryRun', 'estimate', 'partial', 'provenance'] as const;

function pipelineMeta(result: ExecutionResult): Record<string, unknown> {
  const flags: Record<string, unknown> = {};
  const extensions = result.extensions as Record<string, unknown> | undefined;
  if (!extensions) return flags;
  for (const name of PIPELINE_META) if (extensions[name] !== undefined) flags[name] = extensions[name];
  return flags;
}
