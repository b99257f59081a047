import type { DocumentNode, ExecutionArgs, ExecutionResult, GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { makeExecute, type Plugin } from 'graphql-yoga';
import type { Compiled } from './execute-compiled.ts';

export type DocumentCompiler = (document: DocumentNode, operationName: string | undefined) => Compiled;

/**
 * A document's compiled form per operation name: a document may hold several operations, and the policy checks and
 * bills the one the request names, so the form that runs must be that one's. (`@envelop/graphql-jit` keeps one form
 * per document, compiled for whichever operation was asked for first, and ran it for every later name: a free
 * `health` ran a search compiled before it, unbilled and unchecked; security review h, F0.) Yoga's parse cache hands
 * every request of a query text the same document, so the entries go with the documents it holds. A document that
 * does not compile (an unknown operation name) answers its errors, as execution would.
 */
export function documentCompiler(schema: GraphQLSchema): DocumentCompiler {
  const byDocument = new WeakMap<DocumentNode, Map<string | undefined, Compiled>>();
  return (document, operationName) => {
    let byName = byDocument.get(document);
    if (!byName) byDocument.set(document, (byName = new Map()));
    let entry = byName.get(operationName);
    if (!entry) {
      const compiled = compileQuery(schema, document, operationName);
      entry = isCompiledQuery(compiled) ? compiled : { query: () => compiled, stringify: JSON.stringify };
      byName.set(operationName, entry);
    }
    return entry;
  };
}

/** Compiled execution in yoga's chain, by document and operation name; the result keeps graphql-jit's stringifier. */
export function useCompiledDocuments(compiledFor: DocumentCompiler): Plugin {
  const execute = makeExecute(async (args: ExecutionArgs) => {
    const compiled = compiledFor(args.document, args.operationName ?? undefined);
    const result = (await compiled.query(args.rootValue, args.contextValue, args.variableValues ?? {})) as ExecutionResult & { stringify?: unknown };
    result.stringify = compiled.stringify;
    return result;
  });
  return {
    onExecute({ setExecuteFn }) {
      setExecuteFn(execute);
    },
  };
}
