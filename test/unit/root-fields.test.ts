import { getOperationAST, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { rootFieldsOf } from '../../schema/pipeline/root-fields.ts';

const fieldsOf = (query: string) => {
  const document = parse(query);
  const operation = getOperationAST(document)!;
  return (variables: Record<string, unknown>) => rootFieldsOf(operation, document, variables).map((field) => field.responseKey);
};

describe('root fields of an operation, found once per parsed operation', () => {
  it('follows fragments and aliases, each response key once', () => {
    const of = fieldsOf('query { a: health { status } ...F ... on Query { whoami { label } } } fragment F on Query { health { version } a: health { status } }');
    expect(of({})).toEqual(['a', 'health', 'whoami']);
    expect(of({})).toEqual(['a', 'health', 'whoami']);
  });

  it('asks the variables again whenever a directive at the root depends on them', () => {
    const of = fieldsOf('query($s: Boolean!) { health { status } whoami @skip(if: $s) { label } }');
    expect(of({ s: true })).toEqual(['health']);
    expect(of({ s: false })).toEqual(['health', 'whoami']);
    const inFragment = fieldsOf('query($s: Boolean!) { ...F } fragment F on Query { health { status } whoami @include(if: $s) { label } }');
    expect(inFragment({ s: false })).toEqual(['health']);
    expect(inFragment({ s: true })).toEqual(['health', 'whoami']);
  });
});
