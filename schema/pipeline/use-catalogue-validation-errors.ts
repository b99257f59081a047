import type { Plugin } from 'graphql-yoga';
import { toCatalogueValidationError } from './error-mapping.ts';
import { literalPlaces } from './literal-places.ts';

/** Validation errors never reach yoga's error masking: this maps them onto the catalogue (a code, retryable). */
export function useCatalogueValidationErrors(): Plugin {
  return {
    onValidate({ params: { documentAST } }) {
      return ({ valid, result, setResult }) => {
        if (valid) return;
        // Where the document's literals sit, found only for a document that failed (its result is then cached).
        let places: ReturnType<typeof literalPlaces> | undefined;
        setResult(result.map((error) => toCatalogueValidationError(error, (node) => (places ??= literalPlaces(documentAST)).get(node))));
      };
    },
  };
}
