import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../core/json-depth.ts';

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('nestsDeeperThan', () => {
  it('at the limit passes, one level more is refused, arrays and objects alike', () => {
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    const objects = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
    expect(nestsDeeperThan(objects(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan(objects(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it('counts nesting, not brackets: siblings do not add up', () => {
    expect(nestsDeeperThan(`[${Array.from({ length: 1000 }, () => '[1]').join(',')}]`)).toBe(false);
  });

  it('brackets inside strings, escaped quotes included, are not nesting', () => {
    expect(nestsDeeperThan(JSON.stringify({ query: '{'.repeat(1000) }))).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ query: `"${'['.repeat(1000)}\\` }))).toBe(false);
    expect(nestsDeeperThan(`["\\\\",${nested(MAX_JSON_DEPTH)}]`)).toBe(true);
  });

  it('nothing after an unmatched close or an unclosed string is counted: JSON.parse stops there', () => {
    expect(nestsDeeperThan(`]${nested(MAX_JSON_DEPTH + 1)}`)).toBe(false);
    expect(nestsDeeperThan(`["${'['.repeat(100)}`)).toBe(false);
  });
});
