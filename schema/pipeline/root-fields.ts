import { Kind, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

export interface RootField {
  /** The response key (alias or field name): errors and metered units are attributed by it. */
  responseKey: string;
  fieldName: string;
}

/** The root fields an operation selects, looking through fragments at the root. */
export function rootFieldsOf(operation: OperationDefinitionNode, document: DocumentNode): RootField[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const fields: RootField[] = [];
  const seen = new Set<string>();
  const visit = (selectionSet: SelectionSetNode, visited: Set<string>): void => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const responseKey = selection.alias?.value ?? selection.name.value;
        if (!seen.has(responseKey)) {
          seen.add(responseKey);
          fields.push({ responseKey, fieldName: selection.name.value });
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
  return fields;
}
