import { describe, expect, it } from 'vitest';
import { forumQuery, matchesKeywords, microblogQuery, parseKeywords } from '../../../adapters/monitors/keyword-query.ts';

describe('monitor keyword syntax', () => {
  it('reads words, quoted phrases and exclusions, ignoring case', () => {
    expect(parseKeywords('Rust "async runtime" -java -"hello world"')).toEqual([
      { text: 'rust', phrase: false, excluded: false },
      { text: 'async runtime', phrase: true, excluded: false },
      { text: 'java', phrase: false, excluded: true },
      { text: 'hello world', phrase: true, excluded: true },
    ]);
  });

  it('matches every required term and no excluded one', () => {
    const terms = parseKeywords('rust "async runtime" -java');
    expect(matchesKeywords('A new ASYNC RUNTIME for Rust', terms)).toBe(true);
    expect(matchesKeywords('Rust and its async runtime, unlike Java', terms)).toBe(false);
    expect(matchesKeywords('Rust runtime, async', terms)).toBe(false);
  });

  it('compiles into the forum’s search without operators: exclusions are left to the local check', () => {
    expect(forumQuery(parseKeywords('rust "async runtime" -java'))).toBe('rust "async runtime"');
    expect(forumQuery(parseKeywords('subreddit:nsfw author:admin'))).toBe('subreddit nsfw author admin');
    expect(forumQuery(parseKeywords('cats AND dogs OR NOT birds'))).toBe('cats and dogs or not birds');
    expect(forumQuery(parseKeywords('") OR (self:yes'))).not.toMatch(/[:()]/);
    // A required phrase that would read as an exclusion, a requirement or a boolean operator stays a plain word.
    expect(forumQuery(parseKeywords('rust "-java" "+go" "!perl" a||b c&&d'))).toBe('rust java go perl a b c d');
    expect(forumQuery(parseKeywords('"async-std runtime"'))).toBe('"async-std runtime"');
  });

  it('compiles into the microblog’s search with every term quoted, exclusions as -"…"', () => {
    expect(microblogQuery(parseKeywords('rust "async runtime" -java'))).toBe('"rust" "async runtime" -"java"');
    expect(microblogQuery(parseKeywords('from:someone filter:links'))).toBe('"from:someone" "filter:links"');
    expect(microblogQuery(parseKeywords('"a" "b'))).toBe('"a" "b"');
  });
});
