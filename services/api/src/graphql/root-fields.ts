import {
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/**
 * The root fields an operation asks for once its fragments and inline fragments are expanded, each
 * occurrence (alias) on its own; a fragment spread twice counts once, as execution merges it, and
 * `@skip`/`@include` are not applied (a count for caps and charges, never below what runs).
 */
export function rootFieldsOf(document: DocumentNode, operation: OperationDefinitionNode): FieldNode[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);

  const fields: FieldNode[] = [];
  const visited = new Set<string>();
  const collect = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) fields.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet);
      else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment !== undefined) collect(fragment.selectionSet);
      }
    }
  };
  collect(operation.selectionSet);
  return fields;
}
