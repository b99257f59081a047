import {
  BREAK,
  execute,
  getNamedType,
  isScalarType,
  isSpecifiedScalarType,
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
  type ValueNode,
} from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { makeExecute, type Plugin } from 'graphql-yoga';
import type { Compiled } from './execute-compiled.ts';

export type DocumentCompiler = (document: DocumentNode, operationName: string | undefined) => Compiled;

function holdsVariable(value: ValueNode): boolean {
  if (value.kind === Kind.VARIABLE) return true;
  if (value.kind === Kind.LIST) return value.values.some(holdsVariable);
  if (value.kind === Kind.OBJECT) return value.fields.some((field) => holdsVariable(field.value));
  return false;
}

/**
 * Whether graphql-jit would run the document otherwise than graphql-js, which is how the policy reads it (its
 * arguments, its root fields), so that what is checked and billed is what runs (security review h, G-H1 and G-M1):
 * - a variable inside the literal of a custom scalar's argument (`target: {keywords: $kw}`): graphql-jit parses the
 *   literal without the variables, so the monitor was made without the keywords the policy checked and estimated,
 *   and its runs read (and billed) a whole community;
 * - `@skip`/`@include`: graphql-jit writes their conditions onto the document it compiles, which every request of
 *   the query text shares, so one request's operation changed what another's ran; and it skips a fragment spread
 *   seen before under a skipped one (`{ ...F @skip(if: true) ...F }` answered `{}`, billed).
 * Such documents are run by graphql-js itself: rare, and exact.
 */
function needsReferenceExecution(schema: GraphQLSchema, document: DocumentNode): boolean {
  let found = false;
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Directive(node) {
        if (node.name.value !== 'skip' && node.name.value !== 'include') return undefined;
        found = true;
        return BREAK;
      },
      Argument(node) {
        const argument = typeInfo.getArgument();
        const named = argument && getNamedType(argument.type);
        if (!named || !isScalarType(named) || isSpecifiedScalarType(named) || !holdsVariable(node.value)) return undefined;
        found = true;
        return BREAK;
      },
    }),
  );
  return found;
}

/**
 * A document's compiled form per operation name: a document may hold several operations, and the policy checks and
 * bills the one the request names, so the form that runs must be that one's. (`@envelop/graphql-jit` keeps one form
 * per document, compiled for whichever operation was asked for first, and ran it for every later name: a free
 * `health` ran a search compiled before it, unbilled and unchecked; security review h, F0.) Yoga's parse cache hands
 * every request of a query text the same document, so the entries go with the documents it holds. A document that
 * does not compile (an unknown operation name) answers its errors, as execution would. One compiler per schema: yoga's
 * chain and the common JSON request (graphql-json-post.ts) share its forms, so no document is compiled twice.
 */
export function documentCompiler(schema: GraphQLSchema): DocumentCompiler {
  let compiler = compilers.get(schema);
  if (!compiler) compilers.set(schema, (compiler = compilerOf(schema)));
  return compiler;
}

const compilers = new WeakMap<GraphQLSchema, DocumentCompiler>();

function compilerOf(schema: GraphQLSchema): DocumentCompiler {
  const byDocument = new WeakMap<DocumentNode, Map<string | undefined, Compiled>>();
  return (document, operationName) => {
    let byName = byDocument.get(document);
    if (!byName) byDocument.set(document, (byName = new Map()));
    let entry = byName.get(operationName);
    if (!entry) {
      if (needsReferenceExecution(schema, document)) {
        entry = { query: (rootValue, contextValue, variableValues) => execute({ schema, document, rootValue, contextValue, variableValues, operationName }), stringify: JSON.stringify };
      } else {
        const compiled = compileQuery(schema, document, operationName);
        entry = isCompiledQuery(compiled) ? compiled : { query: () => compiled, stringify: JSON.stringify };
      }
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
