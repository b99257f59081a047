import type { ExecutionResult } from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import type { OperationPolicy, PolicyArgs } from './use-operation-policy.ts';

export type Compiled = Pick<CompiledQuery, 'query' | 'stringify'>;

/**
 * A document compiled with graphql-jit, run inside the one policy: the policy's answer instead of executing (a
 * refusal, a dry run), or the execution settled by it. What `useCompiledDocuments` and `useOperationPolicy` do in yoga's
 * chain, for the paths that leave the chain out (the bridges' catalogue documents, the common `/graphql` request).
 * The document is compiled (or its compiled form looked up) only once the policy lets it run. The result keeps
 * graphql-jit's stringifier, as `useCompiledDocuments` leaves it for yoga's result processor.
 */
export async function executeCompiled(policy: OperationPolicy, args: PolicyArgs, compile: () => Compiled): Promise<ExecutionResult> {
  const step = await policy(args);
  if (step && 'answer' in step) return step.answer;
  const compiled = compile();
  const executed = (await compiled.query(undefined, args.contextValue, args.variableValues ?? {})) as ExecutionResult & { stringify?: unknown };
  executed.stringify = compiled.stringify;
  return step ? step.settle(executed) : executed;
}
