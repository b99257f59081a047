import {
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type FragmentSpreadNode,
  type InlineFragmentNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

export interface RootField {
  /** The response key (alias or field name): errors and metered units are attributed by it. */
  responseKey: string;
  fieldName: string;
  node: FieldNode;
}

/** Whether `@skip`/`@include` leave a selection in: a skipped root field is neither run, nor checked, nor billed. */
export function included(node: FieldNode | FragmentSpreadNode | InlineFragmentNode, variables: Record<string, unknown>): boolean {
  if (!node.directives?.length) return true;
  try {
    if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
    return getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
  } catch {
    // A directive argument that does not coerce: execution reports it; keep the field so policy still applies.
    return true;
  }
}

/** Root fields of operations whose root selections carry no directive, so do not depend on the variables. */
const planned = new WeakMap<OperationDefinitionNode, readonly RootField[]>();

/**
 * The root fields an operation selects, looking through fragments at the root and honouring skip/include. Found once
 * per parsed operation (yoga's parse cache hands every request of a document the same one) unless a directive at the
 * root makes them depend on the request's variables.
 */
export function rootFieldsOf(operation: OperationDefinitionNode, document: DocumentNode, variables: Record<string, unknown> = {}): readonly RootField[] {
  const known = planned.get(operation);
  if (known) return known;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const fields: RootField[] = [];
  const seen = new Set<string>();
  let directives = false;
  const visit = (selectionSet: SelectionSetNode, visited: Set<string>): void => {
    for (const selection of selectionSet.selections) {
      if (selection.directives?.length) directives = true;
      if (!included(selection, variables)) continue;
      if (selection.kind === Kind.FIELD) {
        const responseKey = selection.alias?.value ?? selection.name.value;
        if (!seen.has(responseKey)) {
          seen.add(responseKey);
          fields.push({ responseKey, fieldName: selection.name.value, node: selection });
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet, visited);
      } else {
        const fragment = fragments.get(selection.name.value);
        if (fragment && !visited.has(fragment.name.value)) visit(fragment.selectionSet, new Set([...visited, fragment.name.value]));
      }
    }
  };
  visit(operation.selectionSet, new Set());
  if (!directives) planned.set(operation, fields);
  return fields;
}
