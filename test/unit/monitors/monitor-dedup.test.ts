import { describe, expect, it } from 'vitest';
import { dedupe, fingerprintOf, keysOf, type Candidate } from '../../../adapters/monitors/monitor-items.ts';

function candidate(id: string, text: string, links: string[] = []): Candidate {
  return {
    result: { itemType: 'post', source: 'forum', externalId: id, url: `https://example.com/${id}`, title: null, body: text, authorHandle: 'a', communityName: 'c' },
    text,
    idKey: `forum:post:${id}`,
    linkKeys: links.map((link) => `forum:post:${link}`),
    fingerprint: fingerprintOf(text),
    createdAt: 0,
  };
}

const LONG = 'A sufficiently long piece of text about zebracorns and their habits.';

describe('only what is new', () => {
  it('suppresses a seen id, a seen link, seen content and a duplicate within the run', () => {
    const seen = new Set([...keysOf(candidate('old', LONG)), 'id:forum:post:parent']);
    const outcome = dedupe(
      [
        candidate('old', 'edited text of the old post, now quite different from before'),
        candidate('cross', 'a crosspost with its own words entirely', ['parent']),
        candidate('copy', `  ${LONG.toUpperCase()} https://tracker.example/x `),
        candidate('new', 'Brand new content that nobody has seen before, at all.'),
        candidate('new-again', 'Brand new content that nobody has seen before, at all!'),
      ],
      seen,
    );
    expect(outcome.fresh.map((c) => c.result.externalId)).toEqual(['new']);
    expect(outcome.suppressed).toEqual({ seen_id: 1, seen_link: 1, seen_content: 1, duplicate_in_run: 1 });
    expect(outcome.keys).toContain('id:forum:post:new');
  });

  it('does not fingerprint texts too short to tell copies apart', () => {
    expect(fingerprintOf('thanks!')).toBeNull();
    expect(fingerprintOf(LONG)).toBe(fingerprintOf(LONG.toLowerCase().replace(/\s+/g, '  ')));
  });

  it('reports everything on an empty seen-set, in order', () => {
    const outcome = dedupe([candidate('a', 'first item with words enough to count'), candidate('b', 'second item with other words enough')], new Set());
    expect(outcome.fresh.map((c) => c.result.externalId)).toEqual(['a', 'b']);
    expect(outcome.suppressed).toEqual({});
  });
});
