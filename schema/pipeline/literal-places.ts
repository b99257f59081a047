import { Kind, type ASTNode, type DirectiveNode, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode, type ValueNode } from 'graphql';

/** What a literal in a document gives: the argument or variable (and member, `sources.1`), and where its field is. */
export interface LiteralPlace {
  field: string;
  /** The response path of the field the argument belongs to, when it is below the root (`microblogList.members`). */
  path?: string;
}

function placeValue(value: ValueNode, field: string, path: string | undefined, places: Map<ASTNode, LiteralPlace>): void {
  if (!places.has(value)) places.set(value, path ? { field, path } : { field });
  if (value.kind === Kind.LIST) value.values.forEach((item, index) => placeValue(item, `${field}.${index}`, path, places));
  if (value.kind === Kind.OBJECT) {
    for (const member of value.fields) {
      const named = `${field}.${member.name.value}`;
      // An unknown member is reported on the member itself, not on its value.
      if (!places.has(member)) places.set(member, path ? { field: named, path } : { field: named });
      placeValue(member.value, named, path, places);
    }
  }
}

function placeDirectives(directives: readonly DirectiveNode[] | undefined, path: string | undefined, places: Map<ASTNode, LiteralPlace>): void {
  for (const directive of directives ?? []) {
    for (const argument of directive.arguments ?? []) placeValue(argument.value, argument.name.value, path, places);
  }
}

/**
 * Where each literal of a document sits, for GraphQL's validation errors about a literal (`forumPost(id: 1)`:
 * `String cannot represent a non string value: 1`), which point at the value and name nothing. Fields are followed
 * through fragments from each operation, as execution reaches them, so the path is a response path (aliases
 * included). Validation only sees documents within the document limits, every fragment reached
 * (document-limits.ts), so this walk is bounded as theirs is.
 */
export function literalPlaces(document: DocumentNode): Map<ASTNode, LiteralPlace> {
  const places = new Map<ASTNode, LiteralPlace>();
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  // The fragments being expanded: a fragment spread within itself (refused by validation) is walked once.
  const expanding = new Set<string>();
  const walk = (selectionSet: SelectionSetNode, keys: readonly string[]): void => {
    // Only fields below the root carry a path, as the argument checks of walked edges give it (builder.ts).
    const parentPath = keys.length > 1 ? keys.join('.') : undefined;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const at = [...keys, selection.alias?.value ?? selection.name.value];
        const path = at.length > 1 ? at.join('.') : undefined;
        for (const argument of selection.arguments ?? []) placeValue(argument.value, argument.name.value, path, places);
        placeDirectives(selection.directives, path, places);
        if (selection.selectionSet) walk(selection.selectionSet, at);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        placeDirectives(selection.directives, parentPath, places);
        walk(selection.selectionSet, keys);
      } else {
        placeDirectives(selection.directives, parentPath, places);
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (!fragment || expanding.has(name)) continue;
        expanding.add(name);
        walk(fragment.selectionSet, keys);
        expanding.delete(name);
      }
    }
  };
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const variable of definition.variableDefinitions ?? []) {
      if (variable.defaultValue) placeValue(variable.defaultValue, variable.variable.name.value, undefined, places);
    }
    walk(definition.selectionSet, []);
  }
  return places;
}
