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

/** A priced field of a document, found once per document: where it is and which priced field it lies under. */
export interface PlannedField {
  path: string;
  rootKey: string;
  field: GraphQLField<unknown, unknown>;
  node: FieldNode;
  /** Index of the priced field above it in the plan (-1: none). */
  under: number;
  /** The field name just below that priced field on this path: a member with its own bound, or an item. */
  member: string;
}

interface Plan {
  schema: GraphQLSchema;
  fields: PlannedField[];
}

/** Plans of documents without `@skip`/`@include`, whose priced fields do not depend on the variables. */
const plans = new WeakMap<DocumentNode, Map<string, Plan>>();

/** Collects the fields of a selection set by response key, merged as execution merges them. */
function collectFields(
  selectionSet: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  seen: { directives: boolean },
  into = new Map<string, FieldNode[]>(),
  visited = new Set<string>(),
): Map<string, FieldNode[]> {
  for (const selection of selectionSet.selections) {
    if (selection.directives?.length) seen.directives = true;
    if (!included(selection, variables)) continue;
    if (selection.kind === Kind.FIELD) {
      const key = selection.alias?.value ?? selection.name.value;
      const nodes = into.get(key);
      if (nodes) nodes.push(selection);
      else into.set(key, [selection]);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      collectFields(selection.selectionSet, fragments, variables, seen, into, visited);
    } else if (!visited.has(selection.name.value)) {
      const fragment = fragments.get(selection.name.value);
      if (fragment) collectFields(fragment.selectionSet, fragments, variables, seen, into, new Set([...visited, fragment.name.value]));
    }
  }
  return into;
}

/** The priced fields of a document's operation, ancestors before descendants. */
function planOf(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, variables: Record<string, unknown>): Plan {
  const name = operationName ?? '';
  const cached = plans.get(document)?.get(name);
  if (cached && cached.schema === schema) return cached;
  const plan: Plan = { schema, fields: [] };
  const operation = getOperationAST(document, operationName);
  const root = operation?.operation === 'mutation' ? schema.getMutationType() : operation?.operation === 'query' ? schema.getQueryType() : null;
  if (!operation || !root) return plan;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const seen = { directives: false };
  const visit = (type: GraphQLNamedType, selectionSet: SelectionSetNode, path: string, rootKey: string, under: number, member: string | undefined): void => {
    if (!isObjectType(type) && !isInterfaceType(type)) return;
    for (const [key, nodes] of collectFields(selectionSet, fragments, variables, seen)) {
      const field = type.getFields()[nodes[0].name.value];
      if (!field) continue;
      const fieldPath = path ? `${path}.${key}` : key;
      const top = rootKey || key;
      // Members' bounds are keyed by field name: an alias must not change which bound applies.
      const below = member ?? nodes[0].name.value;
      let next = under;
      let nextMember: string | undefined = below;
      if (field.extensions?.[FIELD_COST]) {
        plan.fields.push({ path: fieldPath, rootKey: top, field, node: nodes[0], under, member: below });
        next = plan.fields.length - 1;
        nextMember = undefined;
      }
      const selections = nodes.flatMap((node) => node.selectionSet?.selections ?? []);
      if (selections.length) visit(getNamedType(field.type), { kind: Kind.SELECTION_SET, selections }, fieldPath, top, next, nextMember);
    }
  };
  visit(root, operation.selectionSet, '', '', -1, undefined);
  if (!seen.directives) {
    const byName = plans.get(document) ?? new Map<string, Plan>();
    byName.set(name, plan);
    plans.set(document, byName);
  }
  return plan;
}

/** The priced fields of a document's operation (root fields and walked edges), ancestors before descendants. */
export function pricedFieldsOf(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> = {}, operationName?: string | null): readonly PlannedField[] {
  return planOf(schema, document, operationName, variables).fields;
}

function costOf(field: GraphQLField<unknown, unknown>, node: FieldNode, variables: Record<string, unknown>): FieldCost {
  const cost = field.extensions[FIELD_COST] as FieldCostOf;
  // A price no argument can change (one post by id) and a field without arguments (whoami, health) skip graphql's
  // coercion of the arguments, which would otherwise run on every call.
  if (cost.fixed) return cost.fixed;
  if (field.args.length === 0) return cost({});
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
 * merges them, so they are priced once. Where the priced fields are is planned once per document; each request
 * only reads its arguments.
 */
export function worstCaseCredits(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> = {}, operationName?: string | null): WorstCase {
  const plan = planOf(schema, document, operationName, variables);
  const resolved: { resolutions: number; cost: FieldCost }[] = [];
  const priced: PricedField[] = [];
  const byRootField: Record<string, number> = {};
  let total = 0;
  for (const planned of plan.fields) {
    const parent = planned.under >= 0 ? resolved[planned.under] : undefined;
    const resolutions = parent ? parent.resolutions * (parent.cost.members?.[planned.member] ?? parent.cost.items) : 1;
    const cost = costOf(planned.field, planned.node, variables);
    resolved.push({ resolutions, cost });
    const credits = resolutions * cost.credits;
    priced.push({ path: planned.path, resolutions, credits });
    byRootField[planned.rootKey] = (byRootField[planned.rootKey] ?? 0) + credits;
    total += credits;
  }
  priced.sort((a, b) => b.credits - a.credits);
  return { credits: total, byRootField, fields: priced };
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
