import { GraphQLError, Kind, parse, type DocumentNode, type FragmentDefinitionNode, type ParseOptions, type SelectionSetNode, type Source } from 'graphql';
import type { Plugin } from 'graphql-yoga';

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
} as const;

export type DocumentLimit = keyof typeof DOCUMENT_LIMITS;

const TOKEN_LIMIT = /tokens\. Parsing aborted\.$/;

/** Refused like a document that does not parse: a request error, mapped to a 400 `invalid_request` (error-mapping.ts). */
function refusal(limit: DocumentLimit): GraphQLError {
  const maximum = DOCUMENT_LIMITS[limit];
  return new GraphQLError(`The GraphQL document exceeds the limit of ${maximum} ${limit} per request: split it into smaller requests.`, {
    extensions: { details: { field: 'query', limit, maximum } },
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
 * error validation would give (unreachedFragment).
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
  const visit = (selectionSet: SelectionSetNode, depth: number): DocumentLimit | undefined => {
    if (depth > DOCUMENT_LIMITS.depth) return 'depth';
    for (const selection of selectionSet.selections) {
      if ((seen.directives += selection.directives?.length ?? 0) > DOCUMENT_LIMITS.directives) return 'directives';
      if (++seen.selections > DOCUMENT_LIMITS.selections) return 'selections';
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const exceeded = visit(selection.selectionSet, depth);
        if (exceeded) return exceeded;
      } else if (selection.kind === Kind.FIELD) {
        if (selection.alias && ++seen.aliases > DOCUMENT_LIMITS.aliases) return 'aliases';
        const exceeded = selection.selectionSet && visit(selection.selectionSet, depth + 1);
        if (exceeded) return exceeded;
      } else {
        const name = selection.name.value;
        const fragment = byName.get(name);
        if (!fragment || expanding.has(name)) continue;
        reached.add(name);
        expanding.add(name);
        const exceeded = visit(fragment.selectionSet, depth);
        expanding.delete(name);
        if (exceeded) return exceeded;
      }
    }
    return undefined;
  };
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
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
