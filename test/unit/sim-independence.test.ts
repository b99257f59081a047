import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../support/source-files.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SIM = join(ROOT, 'adapters/sim');

/** Relative imports of a file that resolve outside the simulator. */
function outside(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)]
    .map((match) => resolve(dirname(file), match[1]))
    .filter((target) => relative(SIM, target).startsWith('..'))
    .map((target) => `${relative(ROOT, file)} imports ${relative(ROOT, target)}`);
}

describe('the simulated platforms', () => {
  it('never import the code they check', () => {
    expect(sourceFiles(SIM).flatMap(outside)).toEqual([]);
  });

  it('would report an import from the client (the check can fail)', () => {
    expect(relative(SIM, resolve(SIM, 'microblog', '../../microblog/microblog-text.ts')).startsWith('..')).toBe(true);
  });
});
