import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../schema/catalogue/index.ts';
import { reservationFor } from '../../schema/catalogue/worst-case.ts';

const op = (operationId: string) => {
  const found = OPERATIONS.find((entry) => entry.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId}`);
  return found;
};

describe('credit holds are sized to the request', () => {
  it('a limit bounds them, as given or as its default', () => {
    expect(reservationFor(op('searchForumPosts'), { query: 'x', limit: 10 })).toBe(1 + 3 * 10);
    expect(reservationFor(op('searchForumPosts'), { query: 'x' })).toBe(1 + 3 * 25);
    expect(reservationFor(op('searchForumPosts'), { query: 'x', limit: 100 })).toBe(1 + 3 * 100);
  });

  it('an ids list bounds them by its distinct ids', () => {
    expect(reservationFor(op('getMicroblogPosts'), { ids: '1,2,3,3' })).toBe(1 + 3);
    expect(reservationFor(op('getMicroblogUsers'), { ids: '1,2' })).toBe(1 + 2 * 2);
  });

  it('a lookup is bounded by each of its arrays', () => {
    expect(reservationFor(op('lookupForum'), { posts: ['a', 'b'], subforums: ['c'] })).toBe(1 + 3 * 2 + 1);
    expect(reservationFor(op('lookupForum'), { comments: ['a'] })).toBe(1 + 3);
  });

  it('without a bound in the request, the operation’s largest result', () => {
    const followers = op('getMicroblogUserFollowers');
    const most = Object.entries(followers.billing.maxUnits ?? {}).reduce((sum, [unit, count]) => sum + (unit === 'profile' ? 2 : 1) * (count ?? 0), 1);
    expect(reservationFor(followers, { user: 'simdevs' })).toBe(most);
  });

  it('an out-of-range limit falls back to the largest result rather than under-holding', () => {
    expect(reservationFor(op('searchForumPosts'), { query: 'x', limit: 5000 })).toBe(1 + 3 * 100);
  });
});
