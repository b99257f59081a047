import { describe, expect, it } from 'vitest';
import { MonitorTargetInput } from '../../../adapters/monitors/monitor-targets.ts';

/** Every identifier form docs/monitors.md promises, read into the bare identifier the platforms take. */
describe('monitor target identifiers', () => {
  it.each([
    [{ kind: 'subforum', subforum: 'programming' }, { subforum: 'programming' }],
    [{ kind: 'subforum', subforum: 'r/programming' }, { subforum: 'programming' }],
    [{ kind: 'subforum', subforum: '/r/programming/' }, { subforum: 'programming' }],
    [{ kind: 'subforum', subforum: 'https://www.reddit.com/r/programming/new/' }, { subforum: 'programming' }],
    [{ kind: 'subforum', subforum: 'old.reddit.com/r/programming' }, { subforum: 'programming' }],
    [{ kind: 'forum_user', username: 'someone' }, { username: 'someone' }],
    [{ kind: 'forum_user', username: 'u/someone' }, { username: 'someone' }],
    [{ kind: 'forum_user', username: '/user/someone' }, { username: 'someone' }],
    [{ kind: 'forum_user', username: 'https://www.reddit.com/user/someone/submitted/' }, { username: 'someone' }],
    [{ kind: 'forum_thread', post: 'abc123' }, { post: 'abc123' }],
    [{ kind: 'forum_thread', post: 't3_ABC123' }, { post: 'abc123' }],
    [{ kind: 'forum_thread', post: 'https://www.reddit.com/r/x/comments/abc123/a_title/' }, { post: 'abc123' }],
    [{ kind: 'forum_thread', post: 'https://redd.it/abc123' }, { post: 'abc123' }],
    [{ kind: 'microblog_user', user: 'someone' }, { user: 'someone', includeReplies: false }],
    [{ kind: 'microblog_user', user: '@someone' }, { user: 'someone' }],
    [{ kind: 'microblog_user', user: 'https://x.com/someone' }, { user: 'someone' }],
    [{ kind: 'microblog_user', user: 'https://mobile.twitter.com/someone/with_replies' }, { user: 'someone' }],
    [{ kind: 'microblog_user', user: '44196397' }, { user: '44196397' }],
    [{ kind: 'microblog_thread', post: '2072653763834810367' }, { post: '2072653763834810367' }],
    [{ kind: 'microblog_thread', post: 'https://x.com/someone/status/2072653763834810367?s=20' }, { post: '2072653763834810367' }],
    [{ kind: 'microblog_list', list: 'https://x.com/i/lists/1500000000000000001' }, { list: '1500000000000000001' }],
    [{ kind: 'search', keywords: '  rust "async runtime" -java  ' }, { keywords: 'rust "async runtime" -java' }],
  ])('reads %j', (input, expected) => {
    expect(MonitorTargetInput.parse(input)).toMatchObject(expected);
  });

  it.each([
    { kind: 'subforum', subforum: 'r/a' },
    { kind: 'forum_user', username: 'https://www.reddit.com/r/programming/' },
    { kind: 'forum_thread', post: 'https://x.com/someone/status/1' },
    { kind: 'microblog_thread', post: 'abc' },
    { kind: 'microblog_list', list: 'https://x.com/someone' },
    { kind: 'search', keywords: '-only -exclusions' },
  ])('refuses %j', (input) => {
    expect(MonitorTargetInput.safeParse(input).success).toBe(false);
  });
});
