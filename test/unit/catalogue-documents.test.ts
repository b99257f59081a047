import { Kind, parse, validate, type FieldNode, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../schema/catalogue/index.ts';
import { schema } from '../../schema/schema.ts';
import { withFragments } from '../../schema/zod-graphql.ts';

/** The operation and root field of a catalogue document. */
function rootOf(document: string): { operation: OperationDefinitionNode; field: FieldNode } {
  const operation = parse(withFragments(document)).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (!operation) throw new Error('no operation');
  const field = operation.selectionSet.selections.find((s): s is FieldNode => s.kind === Kind.FIELD);
  if (!field) throw new Error('no root field');
  return { operation, field };
}

describe('the documents the bridges execute', () => {
  it.each(OPERATIONS.map((op) => [op.operationId, op] as const))('%s declares every input and passes it to its root field', (_id, op) => {
    const { operation, field } = rootOf(op.graphql.document);
    const inputs = Object.keys(op.input.shape).sort();
    expect(operation.name?.value).toBe(op.operationId);
    expect(field.name.value).toBe(op.graphql.field);
    expect((operation.variableDefinitions ?? []).map((v) => v.variable.name.value).sort()).toEqual(inputs);
    const passed = (field.arguments ?? []).map((arg) => [arg.name.value, arg.value.kind === Kind.VARIABLE ? arg.value.name.value : null]);
    expect(Object.fromEntries(passed)).toEqual(Object.fromEntries(inputs.map((name) => [name, name])));
  });

  it.each(OPERATIONS.map((op) => [op.operationId, op] as const))('%s is valid against the schema', (_id, op) => {
    expect(validate(schema, parse(withFragments(op.graphql.document)))).toEqual([]);
  });

  // The policy reads REST and MCP variables as sent, without applying defaults (use-operation-policy.ts variablesOf).
  it.each(OPERATIONS.map((op) => [op.operationId, op] as const))('%s declares no variable default', (_id, op) => {
    const { operation } = rootOf(op.graphql.document);
    expect((operation.variableDefinitions ?? []).filter((v) => v.defaultValue).map((v) => v.variable.name.value)).toEqual([]);
  });

  it('fails a document that leaves an input out (the check can fail)', () => {
    const op = OPERATIONS.find((candidate) => candidate.operationId === 'searchForumPosts')!;
    const { operation } = rootOf(op.graphql.document.replace(', $cursor: String', '').replace(', cursor: $cursor', ''));
    expect((operation.variableDefinitions ?? []).map((v) => v.variable.name.value)).not.toContain('cursor');
    expect(Object.keys(op.input.shape)).toContain('cursor');
  });
});
