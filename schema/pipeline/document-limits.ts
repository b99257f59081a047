import { GraphQLError, Kind, parse, type DocumentNode, type FragmentDefinitionNode, type ParseOptions, type SelectionSetNode, type Source } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { OPERATIONS } from '../catalogue/index.ts';

/**
 * Bounds on a GraphQL document, checked while and right after it is parsed, before validation or anything else
 * runs: a document of 10,000 aliases took seconds to parse and validate and held up every other request. Each bound
 * is far above what a real request needs (docs/api-conventions.md "Document limits" gives the largest ones seen).
 */
export const DOCUMENT_LIMITS = {
  /** Lexical tokens (graphql-js's own `maxTokens`): parsing stops at the first one past it. */
  tokens: 10_000,
  /**
   * Fields, fragment spreads and inline fragments as execution reaches them, a fragment counted at every spread. It
   * bounds the walk below as well, and how deep fragments and inline fragments nest (they add no `depth`).
   */
  selections: 2_000,
  aliases: 100,
  /** Nested selection sets, through fragments. */
  depth: 20,
  directives: 50,
  /** Response keys under which each ONCE_PER_OPERATION root field may be asked for in one operation. */
  rootFieldKeys: 1,
  /**
   * Aliases below `__schema` and `__type`. Without them same-named fields merge, so one introspection field answers
   * at most the schema described as deep as graphql-js's MaxIntrospectionDepthRule lets it; each alias would
   * describe it again, a few KB of query making MB of answer.
   */
  introspectionAliases: 0,
} as const;

export type DocumentLimit = keyof typeof DOCUMENT_LIMITS;

const TOKEN_LIMIT = /tokens\. Parsing aborted\.$/;

const INTROSPECTION: ReadonlySet<string> = new Set(['__schema', '__type']);

/**
 * Root fields answered to anyone, without a key, which no rate limit counts, and dear to answer: introspection (its
 * answer is the schema: 100 aliases of `__schema` made 11 MB out of a 9 KB request) and the catalogue's
 * `oncePerOperation` fields (`readiness`: a database round trip each). Repeating one under the same key costs nothing
 * more (GraphQL merges it); under another key it is refused.
 */
const ONCE_PER_OPERATION: ReadonlySet<string> = new Set([...INTROSPECTION, ...OPERATIONS.filter((op) => op.graphql.oncePerOperation).map((op) => op.graphql.field)]);

/** Refused like a document that does not parse: a request error, mapped to a 400 `invalid_request` (error-mapping.ts). */
function refusal(limit: DocumentLimit, message?: string, path?: string): GraphQLError {
  const maximum = DOCUMENT_LIMITS[limit];
  return new GraphQLError(message ?? `The GraphQL document exceeds the limit of ${maximum} ${limit} per request: split it into smaller requests.`, {
    extensions: { details: { field: 'query', limit, maximum, ...(path === undefined ? {} : { path }) } },
  });
}

/**
 * Fragments that no operation reaches, or that share a name, are refused before validation: the walk below counts
 * only what execution reaches, yet graphql-js validates every definition (pairs of same-named fields in each
 * selection set: 2,400 fields in one unused fragment took over a second). Validation refuses them anyway
 * (NoUnusedFragments, UniqueFragmentNames); the messages are graphql-js's.
 */
function unreachedFragment(fragments: readonly FragmentDefinitionNode[], reached: ReadonlySet<string>): GraphQLError | undefined {
  const names = new Set<string>();
  for (const fragment of fragments) {
    const name = fragment.name.value;
    if (names.has(name)) return new GraphQLError(`There can be only one fragment named "${name}".`, { nodes: fragment.name });
    names.add(name);
    if (!reached.has(name)) return new GraphQLError(`Fragment "${name}" is never used.`, { nodes: fragment });
  }
  return undefined;
}

/**
 * The first limit a parsed document exceeds, walking its selections as execution would (fragments expanded, a cycle
 * not followed) and stopping there: every selection it steps over is counted, so the walk costs at most about
 * `selections` steps, plus one pass over the definitions. Or a fragment definition the walk would not reach, as the
 * error validation would give (unreachedFragment). The limits on ONCE_PER_OPERATION fields and introspection aliases
 * come back as their refusal, which names the response path at fault.
 */
export function exceededLimit(document: DocumentNode): DocumentLimit | GraphQLError | undefined {
  const fragments: FragmentDefinitionNode[] = [];
  const byName = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.FRAGMENT_DEFINITION) continue;
    fragments.push(definition);
    byName.set(definition.name.value, definition);
  }
  const seen = { selections: 0, aliases: 0, directives: 0 };
  const reached = new Set<string>();
  // The fragments being expanded, added and removed as the walk enters and leaves them (no copy per spread).
  const expanding = new Set<string>();
  // The response key each ONCE_PER_OPERATION field of the operation being walked was first asked under.
  let keys = new Map<string, string>();
  // `introspected`: the response path below `__schema` or `__type`, where the walk is; undefined elsewhere.
  const visit = (selectionSet: SelectionSetNode, depth: number, introspected?: string): DocumentLimit | GraphQLError | undefined => {
    if (depth > DOCUMENT_LIMITS.depth) return 'depth';
    for (const selection of selectionSet.selections) {
      if ((seen.directives += selection.directives?.length ?? 0) > DOCUMENT_LIMITS.directives) return 'directives';
      if (++seen.selections > DOCUMENT_LIMITS.selections) return 'selections';
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const exceeded = visit(selection.selectionSet, depth, introspected);
        if (exceeded) return exceeded;
      } else if (selection.kind === Kind.FIELD) {
        if (selection.alias && ++seen.aliases > DOCUMENT_LIMITS.aliases) return 'aliases';
        const name = selection.name.value;
        const key = selection.alias?.value ?? name;
        if (introspected !== undefined && selection.alias) {
          const path = `${introspected}.${key}`;
          return refusal('introspectionAliases', `Aliases are refused below __schema and __type (${path}): each would describe the schema again. Ask for each field once.`, path);
        }
        if (depth === 1 && ONCE_PER_OPERATION.has(name)) {
          const first = keys.get(name);
          if (first === undefined) keys.set(name, key);
          else if (first !== key) {
            return refusal('rootFieldKeys', `${name} may be asked for once per operation (here as ${first} and ${key}): it is answered without a key, and no rate limit counts it.`, key);
          }
        }
        const below = introspected !== undefined ? `${introspected}.${key}` : depth === 1 && INTROSPECTION.has(name) ? key : undefined;
        const exceeded = selection.selectionSet && visit(selection.selectionSet, depth + 1, below);
        if (exceeded) return exceeded;
      } else {
        const name = selection.name.value;
        const fragment = byName.get(name);
        if (!fragment || expanding.has(name)) continue;
        reached.add(name);
        expanding.add(name);
        const exceeded = visit(fragment.selectionSet, depth, introspected);
        expanding.delete(name);
        if (exceeded) return exceeded;
      }
    }
    return undefined;
  };
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    keys = new Map();
    const exceeded = visit(definition.selectionSet, 1);
    if (exceeded) return exceeded;
  }
  return unreachedFragment(fragments, reached);
}

/** Parses within DOCUMENT_LIMITS; a document past one is refused as a 400 naming the limit. */
export function parseWithinLimits(source: string | Source, options?: ParseOptions): DocumentNode {
  let document: DocumentNode;
  try {
    document = parse(source, { ...options, maxTokens: DOCUMENT_LIMITS.tokens });
  } catch (error) {
    if (error instanceof GraphQLError && TOKEN_LIMIT.test(error.message)) throw refusal('tokens');
    throw error;
  }
  const outcome = exceededLimit(document);
  if (outcome instanceof GraphQLError) throw outcome;
  if (outcome) throw refusal(outcome);
  return document;
}

/**
 * Every document `/graphql` parses goes through parseWithinLimits. Yoga's parse cache keeps the outcome (the
 * document, or the refusal) by the query's text, so a known query is not parsed or walked again. The bridges run
 * their catalogue documents, parsed once at start, and never come here.
 */
export function useDocumentLimits(): Plugin {
  return {
    onParse({ setParseFn }) {
      setParseFn(parseWithinLimits);
    },
  };
}
