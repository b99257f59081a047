import { describe, expect, it } from 'vitest';
import { parseCommentReference, parsePostReference, parseSubforumReference } from '../../resolvers/forum/forum-references.ts';

const value = (parsed: { ok: boolean; value?: string }) => (parsed.ok ? parsed.value : undefined);

describe('lookup references', () => {
  it('posts: id, fullname, post URL, short link', () => {
    expect(value(parsePostReference('1a0000c'))).toBe('1a0000c');
    expect(value(parsePostReference('t3_1A0000C'))).toBe('1a0000c');
    expect(value(parsePostReference('https://www.reddit.com/r/pics/comments/1a0000c/some_title/'))).toBe('1a0000c');
    expect(value(parsePostReference('https://old.reddit.com/comments/1a0000c'))).toBe('1a0000c');
    expect(value(parsePostReference('https://redd.it/1a0000c'))).toBe('1a0000c');
    expect(value(parsePostReference('redd.it/1a0000c'))).toBe('1a0000c');
  });

  it('share links are refused as such, for every kind', () => {
    expect(parsePostReference('https://www.reddit.com/r/pics/s/AbCdEf123')).toEqual({ ok: false, problem: { entry: 'https://www.reddit.com/r/pics/s/AbCdEf123', field: 'posts', kind: 'share_link' } });
    expect(parseCommentReference('https://www.reddit.com/r/pics/s/AbCdEf123')).toMatchObject({ ok: false, problem: { kind: 'share_link', field: 'comments' } });
    expect(parseSubforumReference('https://www.reddit.com/r/pics/s/AbCdEf123')).toMatchObject({ ok: false, problem: { kind: 'share_link', field: 'subforums' } });
  });

  it('unreadable entries are named', () => {
    expect(parsePostReference('not a post!')).toMatchObject({ ok: false, problem: { kind: 'unreadable', entry: 'not a post!' } });
    expect(parsePostReference('https://example.com/article')).toMatchObject({ ok: false, problem: { kind: 'unreadable' } });
    expect(parseCommentReference('https://www.reddit.com/r/pics/comments/1a0000c/title/')).toMatchObject({ ok: false, problem: { kind: 'unreadable' } });
  });

  it('comments: id, fullname, permalink (absolute or relative)', () => {
    expect(value(parseCommentReference('g00abcd'))).toBe('g00abcd');
    expect(value(parseCommentReference('t1_g00abcd'))).toBe('g00abcd');
    expect(value(parseCommentReference('https://www.reddit.com/r/pics/comments/1a0000c/title/g00abcd/'))).toBe('g00abcd');
    expect(value(parseCommentReference('/r/pics/comments/1a0000c/title/g00abcd/'))).toBe('g00abcd');
  });

  it('communities: name, r/name, /r/name/, URL (with a listing), two-letter names', () => {
    expect(value(parseSubforumReference('programming'))).toBe('programming');
    expect(value(parseSubforumReference('r/AskForum'))).toBe('AskForum');
    expect(value(parseSubforumReference('/r/pics/'))).toBe('pics');
    expect(value(parseSubforumReference('https://www.reddit.com/r/pics/new/'))).toBe('pics');
    expect(value(parseSubforumReference('nl'))).toBe('nl');
    expect(parseSubforumReference('https://www.reddit.com/r/pics/comments/1a0000c/x/')).toMatchObject({ ok: false });
    expect(parseSubforumReference('a')).toMatchObject({ ok: false });
  });
});
