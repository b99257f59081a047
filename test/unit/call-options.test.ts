import { describe, expect, it } from 'vitest';
import { checkCallOptions, callOptionsFromHeaders } from '../../core/call-options.ts';
import { getMicroblogListMembers } from '../../schema/catalogue/microblog-lists.ts';
import { getForumPost } from '../../schema/catalogue/forum-posts.ts';
import { smallerPage } from '../../schema/pipeline/credit-ceiling.ts';

describe('call options', () => {
  it('reads the headers and checks them, naming the header on a 400', () => {
    const sent = callOptionsFromHeaders((name) => ({ 'x-max-credits': '12', 'x-dry-run': 'true' })[name]);
    expect(checkCallOptions(sent)).toEqual({ maxCredits: { credits: 12, field: 'x-max-credits' }, dryRun: true });
    expect(checkCallOptions(callOptionsFromHeaders(() => undefined))).toEqual({ dryRun: false });
    for (const bad of ['-1', '1.5', 'ten', '', '10000000000']) {
      expect(() => checkCallOptions({ maxCredits: [{ value: bad, field: 'x-max-credits' }] })).toThrow(expect.objectContaining({ extensions: expect.objectContaining({ details: { field: 'x-max-credits' } }) }));
    }
    expect(() => checkCallOptions({ dryRun: [{ value: 'yes', field: 'dryRun' }] })).toThrow(/'dryRun' must be true or false/);
    expect(() => checkCallOptions({ maxCredits: [{ value: ['1', '2'], field: 'x-max-credits' }] })).toThrow();
  });

  it('takes JSON values from extensions and tool arguments', () => {
    expect(checkCallOptions({ maxCredits: [{ value: 0, field: 'maxCredits' }], dryRun: [{ value: false, field: 'dryRun' }] })).toEqual({ maxCredits: { credits: 0, field: 'maxCredits' }, dryRun: false });
  });

  it('applies the strictest of the names an option came with: the lowest ceiling, a dry run if any asks', () => {
    // Before: the extension or argument replaced the header, so a client could lift a gateway's ceiling (review h).
    const header = { value: '10', field: 'x-max-credits' };
    expect(checkCallOptions({ maxCredits: [header, { value: 500, field: 'extensions.maxCredits' }] }).maxCredits).toEqual({ credits: 10, field: 'x-max-credits' });
    expect(checkCallOptions({ maxCredits: [header, { value: 3, field: 'extensions.maxCredits' }] }).maxCredits).toEqual({ credits: 3, field: 'extensions.maxCredits' });
    expect(checkCallOptions({ dryRun: [{ value: 'true', field: 'x-dry-run' }, { value: false, field: 'dryRun' }] }).dryRun).toBe(true);
    expect(() => checkCallOptions({ maxCredits: [header, { value: 'x', field: 'maxCredits' }] })).toThrow(/'maxCredits' must be an integer/);
  });
});

describe('smallerPage', () => {
  const linear = (limit: number) => 1 + limit;

  it('is the largest limit whose worst case fits the ceiling', () => {
    expect(smallerPage({ op: getMicroblogListMembers, args: { id: '1', limit: 100 } }, 11, linear)).toEqual({ limit: 10, limitAsked: 100, worstCaseCredits: 11 });
    // The default limit (20) is the one asked when none is given.
    expect(smallerPage({ op: getMicroblogListMembers, args: { id: '1' } }, 5, linear)).toEqual({ limit: 4, limitAsked: 20, worstCaseCredits: 5 });
  });

  it('finds the limit by halving, in as many plans as the limit asked has bits, whatever the shape of the worst case', () => {
    const shapes = { linear, steps: (limit: number) => 3 * Math.ceil(limit / 7), plateau: (limit: number) => (limit < 40 ? 5 : 50 + limit) };
    for (const [name, shape] of Object.entries(shapes)) {
      for (const maxCredits of [1, 2, 5, 9, 30, 89, 100]) {
        let plans = 0;
        const found = smallerPage({ op: getMicroblogListMembers, args: { id: '1', limit: 100 } }, maxCredits, (limit) => (plans++, shape(limit)));
        let largest = 0;
        for (let limit = 1; limit < 100; limit++) if (shape(limit) <= maxCredits) largest = limit;
        expect(found?.limit, `${name} under ${maxCredits}`).toBe(largest || undefined);
        if (found) expect(found.worstCaseCredits).toBe(shape(found.limit));
        expect(plans, `${name} under ${maxCredits}`).toBeLessThanOrEqual(Math.ceil(Math.log2(100)));
      }
    }
  });

  it('is none when even one item does not fit, or the operation takes no limit', () => {
    expect(smallerPage({ op: getMicroblogListMembers, args: { id: '1', limit: 100 } }, 1, linear)).toBeUndefined();
    expect(smallerPage({ op: getForumPost, args: { id: '1a00005' } }, 1, () => 4)).toBeUndefined();
  });
});
