import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../support/source-files.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** What each layer may import besides itself: imports flow one way, bridges → schema → resolvers → core → adapters. */
const ALLOWED: Record<string, readonly string[]> = {
  adapters: [],
  core: ['adapters'],
  resolvers: ['core', 'adapters'],
  schema: ['resolvers', 'core', 'adapters'],
  'rest-bridge': ['schema', 'core', 'adapters'],
  'mcp-bridge': ['schema', 'core', 'adapters'],
  'operator-bridge': ['schema', 'core', 'adapters'],
  // A bridge too: the people-facing pages; only the composition root (service/) imports it.
  dashboard: ['schema', 'resolvers', 'core', 'adapters'],
  'oauth-server': ['core', 'adapters'],
};

/** The top-level folder of every relative import of a file. */
function importedLayers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((match) => relative(ROOT, resolve(dirname(file), match[1])).split('/')[0]);
}

function violations(layer: string): string[] {
  const allowed = new Set([layer, ...ALLOWED[layer]]);
  return sourceFiles(join(ROOT, layer)).flatMap((file) =>
    importedLayers(file)
      .filter((imported) => !allowed.has(imported))
      .map((imported) => `${relative(ROOT, file)} imports ${imported}/`),
  );
}

describe('imports flow one way between layers', () => {
  it.each(Object.keys(ALLOWED))('%s imports only the layers below it', (layer) => {
    expect(violations(layer)).toEqual([]);
  });

  it('reports an import against the flow (the check can fail)', () => {
    expect(importedLayers(join(ROOT, 'schema/schema.ts'))).toContain('schema');
    expect(ALLOWED.resolvers).not.toContain('schema');
  });
});
