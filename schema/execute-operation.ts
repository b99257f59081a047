import { parse, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { OperationSpec } from './catalogue/operation.ts';
import type { RequestContext } from '../core/request-context.ts';
import { withFragments } from './zod-graphql.ts';

/** The subset of envelop's `getEnveloped()` the bridges need: yoga's own plugin chain around execute. */
export type GetEnveloped = (initialContext: RequestContext) => {
  schema: GraphQLSchema;
  contextFactory: () => unknown;
  execute: (args: {
    schema: GraphQLSchema;
    document: DocumentNode;
    variableValues?: Record<string, unknown>;
    contextValue: unknown;
    operationName?: string;
  }) => unknown;
};

export type OperationExecutor = (op: OperationSpec, variables: Record<string, unknown>, ctx: RequestContext) => Promise<ExecutionResult>;

/**
 * Runs a catalogue operation's pre-parsed document through the same plugin chain as `/graphql`, so the
 * bridges never call resolvers directly and never re-implement policy.
 */
export function createOperationExecutor(getEnveloped: GetEnveloped, operations: readonly OperationSpec[]): OperationExecutor {
  const documents = new Map(operations.map((op) => [op.operationId, parse(withFragments(op.graphql.document))]));
  return async (op, variables, ctx) => {
    const document = documents.get(op.operationId);
    if (!document) throw new Error(`No document for ${op.operationId}`);
    const enveloped = getEnveloped(ctx);
    const contextValue = await enveloped.contextFactory();
    return (await enveloped.execute({
      schema: enveloped.schema,
      document,
      variableValues: variables,
      contextValue,
      operationName: op.operationId,
    })) as ExecutionResult;
  };
}
