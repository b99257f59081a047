import type { DocumentNode, GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Validation results by schema and parsed document (yoga's parse cache hands every request of a document the same
 * one). Yoga's own validation cache keys its entries by the names of the rules as well, and envelop's engine adds
 * graphql's specified rules one by one on every validation, so that key was built anew per request: 6–8 % of a small
 * call. Every validation here runs the same rules (no plugin adds any), so the document and schema are the key.
 * Registered after the plugins that rewrite validation errors: it keeps the result as they left it, as yoga's did.
 */
export function useValidationCache(): Plugin {
  const bySchema = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, readonly Error[]>>();
  return {
    onValidate({ params: { schema, documentAST }, setResult }) {
      let byDocument = bySchema.get(schema);
      if (!byDocument) bySchema.set(schema, (byDocument = new WeakMap()));
      const known = byDocument.get(documentAST);
      if (known) return setResult(known);
      return ({ result }) => {
        byDocument.set(documentAST, result);
      };
    },
  };
}
