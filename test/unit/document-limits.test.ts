import { getIntrospectionQuery, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DOCUMENT_LIMITS, exceededLimit, parseWithinLimits } from '../../schema/pipeline/document-limits.ts';
import { toCatalogueError } from '../../schema/pipeline/error-mapping.ts';

const aliased = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: health { status }`).join(' ')} }`;
const nested = (levels: number) => `${'{ a '.repeat(levels - 1)}{ b }${' }'.repeat(levels - 1)}`;

/** The refusal as the client gets it, mapped as every request error is. */
function refusalOf(query: string): unknown {
  try {
    parseWithinLimits(query);
  } catch (error) {
    return toCatalogueError(error).extensions;
  }
  return undefined;
}

describe('GraphQL document limits', () => {
  it('aliases: at the limit passes, one more is refused', () => {
    expect(exceededLimit(parse(aliased(DOCUMENT_LIMITS.aliases)))).toBeUndefined();
    expect(exceededLimit(parse(aliased(DOCUMENT_LIMITS.aliases + 1)))).toBe('aliases');
  });

  it('depth: at the limit passes, one more level is refused, through fragments too', () => {
    expect(exceededLimit(parse(nested(DOCUMENT_LIMITS.depth)))).toBeUndefined();
    expect(exceededLimit(parse(nested(DOCUMENT_LIMITS.depth + 1)))).toBe('depth');
    const half = DOCUMENT_LIMITS.depth / 2;
    expect(exceededLimit(parse(`{ a { ...F } } fragment F on T ${nested(half)}`))).toBeUndefined();
    expect(exceededLimit(parse(`{ a { x { ...F } } } fragment F on T ${nested(DOCUMENT_LIMITS.depth - 1)}`))).toBe('depth');
  });

  it('selections count a fragment at every spread: 2^12 fields from 12 small fragments are refused', () => {
    const fragments = Array.from({ length: 12 }, (_, i) => `fragment F${i} on T { a { ...F${i + 1} } b { ...F${i + 1} } }`).join(' ');
    const document = parse(`{ ...F0 } ${fragments} fragment F12 on T { c }`);
    expect(exceededLimit(document)).toBe('selections');
  });

  it('inline fragments count as selections: a fragment of 1,500 nested ones spread 990 times (1.5 M steps) is refused', () => {
    const fanout = (spreads: number, levels: number) =>
      `query { ${Array(spreads).fill('...F').join(' ')} } fragment F on Query { ${'... on Query { '.repeat(levels)}__typename${' }'.repeat(levels)} }`;
    expect(exceededLimit(parse(fanout(990, 1500)))).toBe('selections');
    expect(exceededLimit(parse(`{ ${'... on Query { '.repeat(DOCUMENT_LIMITS.selections)}__typename${' }'.repeat(DOCUMENT_LIMITS.selections)} }`))).toBe('selections');
    expect(exceededLimit(parse(`{ ${'... on Query { '.repeat(DOCUMENT_LIMITS.selections - 1)}__typename${' }'.repeat(DOCUMENT_LIMITS.selections - 1)} }`))).toBeUndefined();
  });

  it('a fragment cycle is not followed (validation refuses it later)', () => {
    expect(exceededLimit(parse('{ ...A } fragment A on T { a ...B } fragment B on T { b ...A }'))).toBeUndefined();
  });

  it('directives', () => {
    const many = (n: number) => `{ health ${'@include(if: true) '.repeat(n)}{ status } }`;
    expect(exceededLimit(parse(many(DOCUMENT_LIMITS.directives)))).toBeUndefined();
    expect(exceededLimit(parse(many(DOCUMENT_LIMITS.directives + 1)))).toBe('directives');
  });

  it('tokens: parsing stops past the limit and the refusal names it (a graphql-js message change fails here)', () => {
    const query = `{ health { ${'status '.repeat(DOCUMENT_LIMITS.tokens)}} }`;
    expect(refusalOf(query)).toMatchObject({ code: 'invalid_request', http: { status: 400 }, details: { field: 'query', limit: 'tokens', maximum: DOCUMENT_LIMITS.tokens } });
  });

  it("GraphiQL's introspection query is within every limit", () => {
    expect(exceededLimit(parseWithinLimits(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true })))).toBeUndefined();
  });

  it('a refusal names the limit; a document within every limit parses; a syntax error stays a syntax error', () => {
    expect(refusalOf(aliased(DOCUMENT_LIMITS.aliases + 1))).toMatchObject({ code: 'invalid_request', details: { field: 'query', limit: 'aliases', maximum: DOCUMENT_LIMITS.aliases } });
    expect(parseWithinLimits(aliased(3)).definitions).toHaveLength(1);
    expect(() => parseWithinLimits('{ health { ')).toThrow(/Syntax Error/);
  });
});

describe('root fields answered to anyone are asked for once per operation, introspection without aliases', () => {
  const refusal = (query: string) => exceededLimit(parse(query)) as { extensions?: { details?: unknown } } | undefined;

  it('__schema, __type and readiness: a second response key is refused, naming it; the same key again merges and passes', () => {
    for (const field of ['__schema { queryType { name } }', '__type(name: "Query") { name }', 'readiness { status }']) {
      expect(refusal(`{ ${field} b: ${field} }`)?.extensions?.details).toEqual({ field: 'query', limit: 'rootFieldKeys', maximum: 1, path: 'b' });
      expect(refusal(`{ a: ${field} ...F } fragment F on Query { ... on Query { c: ${field} } }`)?.extensions?.details).toMatchObject({ limit: 'rootFieldKeys', path: 'c' });
      expect(exceededLimit(parse(`{ a: ${field} a: ${field} }`))).toBeUndefined();
    }
    expect(exceededLimit(parse('{ __schema { queryType { name } } __type(name: "Query") { name } readiness { status } a: health { status } b: health { status } }'))).toBeUndefined();
  });

  it('each operation of a document has its own (only one runs)', () => {
    expect(exceededLimit(parse('query A { a: readiness { status } } query B { b: readiness { status } }'))).toBeUndefined();
  });

  it('an alias below __schema or __type, through fragments too, is refused naming its response path', () => {
    expect(refusal('{ __schema { types { a: fields { name } } } }')?.extensions?.details).toEqual({ field: 'query', limit: 'introspectionAliases', maximum: 0, path: '__schema.types.a' });
    expect(refusal('{ s: __type(name: "Query") { ...T } } fragment T on __Type { fields { type { n: name } } }')?.extensions?.details).toMatchObject({ path: 's.fields.type.n' });
    expect(exceededLimit(parse('{ __schema { types { name } } a: health { status } }'))).toBeUndefined();
  });
});

describe('fragments the walk would not count are refused before validation', () => {
  it('an unused fragment of 2,400 same-named fields (validation took over a second) is refused, as validation would', () => {
    const query = `{ __typename } fragment U on Query { ${Array(2400).fill('health { status }').join(' ')} }`;
    expect(() => parseWithinLimits(query)).toThrow('Fragment "U" is never used.');
    expect(toCatalogueError(refusalError(query))).toMatchObject({ extensions: { code: 'invalid_request', http: { status: 400 } } });
  });

  it('a second fragment of the same name is refused: the walk only expands one of them', () => {
    expect(() => parseWithinLimits('{ ...U } fragment U on Query { __typename } fragment U on Query { health { status } }')).toThrow('There can be only one fragment named "U".');
  });

  it('fragments reached only through other fragments, or through a cycle, are used', () => {
    expect(exceededLimit(parse('{ ...A } fragment A on T { a ...B } fragment B on T { b ...C } fragment C on T { c }'))).toBeUndefined();
    expect(exceededLimit(parse('{ ...A } fragment A on T { a ...B } fragment B on T { b ...A }'))).toBeUndefined();
  });
});

function refusalError(query: string): unknown {
  try {
    parseWithinLimits(query);
  } catch (error) {
    return error;
  }
  return undefined;
}
