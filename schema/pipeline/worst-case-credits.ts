import {
  getArgumentValues,
  getNamedType,
  getOperationAST,
  isObjectType,
  isInterfaceType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { ServiceError } from '../../core/error-catalogue.ts';
import { FIELD_COST, WORST_CASE_CEILING_CREDITS, type FieldCost, type FieldCostOf } from '../catalogue/worst-case.ts';
import { included } from './root-fields.ts';

/** One priced field of a request: its response path, how often it can resolve, and its credits at most. */
export interface PricedField {
  path: string;
  resolutions: number;
  credits: number;
}

export interface WorstCase {
  /** The most credits the request can be charged. */
  credits: number;
  /** Per root field (by response key): what that field and everything walked below it can cost at most. */
  byRootField: Record<string, number>;
  /** Every priced field (root fields and walk edges) with its share of the worst case, largest first. */
  fields: PricedField[];
}

/** Collects the fields of a selection set by response key, merged as execution merges them. */
function collectFields(
  selectionSet: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  into = new Map<string, FieldNode[]>(),
  visited = new Set<string>(),
): Map<string, FieldNode[]> {
  for (const selection of selectionSet.selections) {
    if (!included(selection, variables)) continue;
    if (selection.kind === Kind.FIELD) {
      const key = selection.alias?.value ?? selection.name.value;
      into.set(key, [...(into.get(key) ?? []), selection]);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      collectFields(selection.selectionSet, fragments, variables, into, visited);
    } else if (!visited.has(selection.name.value)) {
      const fragment = fragments.get(selection.name.value);
      if (fragment) collectFields(fragment.selectionSet, fragments, variables, into, new Set([...visited, fragment.name.value]));
    }
  }
  return into;
}

function costOf(field: GraphQLField<unknown, unknown>, node: FieldNode, variables: Record<string, unknown>): FieldCost | undefined {
  const cost = field.extensions?.[FIELD_COST] as FieldCostOf | undefined;
  if (!cost) return undefined;
  let args: Record<string, unknown>;
  try {
    args = getArgumentValues(field, node, variables);
  } catch {
    // Arguments that do not coerce fail validation before anything runs; price the field at its defaults.
    args = {};
  }
  return cost(args);
}

/**
 * The most credits a GraphQL request can cost, known before it runs: each root field at its reservation, and each
 * walked edge at the bound of what it returns times the number of parents it can be walked from (a page of 100
 * posts walking `authorProfile` is 100 profiles). Prices and bounds come from the catalogue through the fields'
 * `worstCase` extension; skipped fields cost nothing. Fields with the same response key are merged, as execution
 * merges them, so they are priced once.
 */
export function worstCaseCredits(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> = {}, operationName?: string | null): WorstCase {
  const operation = getOperationAST(document, operationName);
  const empty: WorstCase = { credits: 0, byRootField: {}, fields: [] };
  if (!operation) return empty;
  const root = operation.operation === 'mutation' ? schema.getMutationType() : operation.operation === 'query' ? schema.getQueryType() : null;
  if (!root) return empty;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const priced: PricedField[] = [];
  const byRootField: Record<string, number> = {};

  /** `resolutions`: how often each field of this selection resolves; `under`: the priced field just above, if any. */
  const visit = (type: GraphQLNamedType, nodes: readonly FieldNode[], resolutions: number, under: FieldCost | undefined, path: string, rootKey: string): void => {
    if (!isObjectType(type) && !isInterfaceType(type)) return;
    const merged: SelectionSetNode = { kind: Kind.SELECTION_SET, selections: nodes.flatMap((node) => node.selectionSet?.selections ?? []) };
    for (const [key, fieldNodes] of collectFields(merged, fragments, variables)) {
      const field = type.getFields()[fieldNodes[0].name.value];
      if (!field) continue;
      const times = resolutions * (under ? (under.members?.[key] ?? under.items) : 1);
      const fieldPath = path ? `${path}.${key}` : key;
      const cost = costOf(field, fieldNodes[0], variables);
      if (cost) {
        const credits = times * cost.credits;
        priced.push({ path: fieldPath, resolutions: times, credits });
        const top = rootKey || key;
        byRootField[top] = (byRootField[top] ?? 0) + credits;
      }
      visit(getNamedType(field.type), fieldNodes, times, cost, fieldPath, rootKey || key);
    }
  };
  visit(root, [{ kind: Kind.FIELD, name: { kind: Kind.NAME, value: '' }, selectionSet: operation.selectionSet }], 1, undefined, '', '');
  priced.sort((a, b) => b.credits - a.credits);
  return { credits: priced.reduce((sum, field) => sum + field.credits, 0), byRootField, fields: priced };
}

/**
 * Refuses, before anything runs or is held, a request whose worst case exceeds the ceiling: a 400 naming the
 * path of its costliest field, so the client knows which limit or edge to trim.
 */
export function refuseAboveCeiling(worstCase: WorstCase, ceiling = WORST_CASE_CEILING_CREDITS): void {
  if (worstCase.credits <= ceiling) return;
  const costliest = worstCase.fields[0];
  throw new ServiceError('query_too_costly', {
    message: `This query can cost up to ${worstCase.credits} credits, above the ceiling of ${ceiling} per request; its costliest part is '${costliest.path}' (up to ${costliest.credits} credits). Ask for smaller pages or walk fewer edges, and page through the rest.`,
    details: { path: costliest.path, worstCase: worstCase.credits, ceiling, fields: worstCase.fields.slice(0, 10) },
  });
}
