import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { documentCompiler } from '../../schema/pipeline/compiled-documents.ts';
import { schema } from '../../schema/schema.ts';

describe('compiled documents', () => {
  it('are kept once per schema, so yoga’s chain and the common JSON request never compile a document twice', () => {
    const document = parse('query A { health { status } } query B { whoami { keyId } }');
    expect(documentCompiler(schema)).toBe(documentCompiler(schema));
    const first = documentCompiler(schema)(document, 'A');
    expect(documentCompiler(schema)(document, 'A')).toBe(first);
    // Each operation of the document has a form of its own.
    expect(documentCompiler(schema)(document, 'B')).not.toBe(first);
  });
});
