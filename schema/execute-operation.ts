import { parse, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import type { OperationSpec } from './catalogue/operation.ts';
import type { RequestContext } from '../core/request-context.ts';
import type { OperationPolicy } from './pipeline/use-operation-policy.ts';
import { executeCompiled } from './pipeline/execute-compiled.ts';
import { worstCaseCredits } from './pipeline/worst-case-credits.ts';
import { schema } from './schema.ts';
import { withFragments } from './zod-graphql.ts';

export interface OperationExecutor {
  (op: OperationSpec, variables: Record<string, unknown>, ctx: RequestContext): Promise<ExecutionResult>;
  /** The worst case the pipeline prices a call at, from the same document: for a refusal made before it ran. */
  worstCase(op: OperationSpec, variables: Record<string, unknown>): number;
}

/**
 * Runs a catalogue operation's document, compiled once at start, inside the one policy `/graphql` runs, so the
 * bridges never call resolvers directly and never re-implement policy. Yoga's plugin chain is left out: its other
 * plugins parse, validate and mask what a client sent, and a catalogue document is none of that.
 */
export function createOperationExecutor(policy: OperationPolicy, operations: readonly OperationSpec[]): OperationExecutor {
  const compiled = new Map(
    operations.map((op) => {
      const document = parse(withFragments(op.graphql.document));
      const query = compileQuery(schema, document, op.operationId);
      if (!isCompiledQuery(query)) throw new Error(`${op.operationId} does not compile: ${query.errors?.map((error) => error.message).join('; ')}`);
      return [op.operationId, { document, query }] as const;
    }),
  );
  const entryOf = (op: OperationSpec) => {
    const entry = compiled.get(op.operationId);
    if (!entry) throw new Error(`No document for ${op.operationId}`);
    return entry;
  };
  const execute = (op: OperationSpec, variables: Record<string, unknown>, ctx: RequestContext) => {
    const { document, query } = entryOf(op);
    return executeCompiled(policy, { schema, document, variableValues: variables, contextValue: ctx, operationName: op.operationId }, () => query);
  };
  const worstCase = (op: OperationSpec, variables: Record<string, unknown>) => worstCaseCredits(schema, entryOf(op).document, variables, op.operationId).credits;
  return Object.assign(execute, { worstCase });
}
