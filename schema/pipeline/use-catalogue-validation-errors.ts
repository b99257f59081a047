import type { Plugin } from 'graphql-yoga';
import { toCatalogueError } from './error-mapping.ts';

/** Validation errors never reach yoga's error masking: this maps them onto the catalogue (a code, retryable). */
export function useCatalogueValidationErrors(): Plugin {
  return {
    onValidate() {
      return ({ valid, result, setResult }) => {
        if (!valid) setResult(result.map((error) => toCatalogueError(error)));
      };
    },
  };
}
