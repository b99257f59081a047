import { describe, expect, it } from 'vitest';
import { loadForumFixture, STAND_IN_POST } from './fixture-support.ts';
import { mapForumPost } from '../../../adapters/forum/forum-post-mapper.ts';
import { mapForumComment } from '../../../adapters/forum/forum-comment-mapper.ts';
import { mapSubforum } from '../../../adapters/forum/subforum-mapper.ts';
import { mapCommentTree } from '../../../adapters/forum/comment-tree-mapper.ts';
import { mapPostListing } from '../../../adapters/forum/listing-mapper.ts';
import { classifyForumResponse, subforumNotPublicReason } from '../../../adapters/forum/forum-error-classifier.ts';
import type { Listing, T1Data, T3Data, T5Data } from '../../../adapters/forum/forum-wire.ts';

type Tree = [Listing, Listing];

function listingData<T>(file: string, index = 0): T {
  return (loadForumFixture(file) as Listing).data.children![index].data as T;
}

function treePost(file: string): T3Data {
  return (loadForumFixture(file) as Tree)[0].data.children![0].data as T3Data;
}

describe('forum traps from FIELD-NOTES.md', () => {
  it('edited is false (→ null) or epoch seconds (kept)', () => {
    expect(mapForumPost(listingData<T3Data>('api-info-t3.json')).edited).toBeNull();
    expect(mapForumComment(listingData<T1Data>('api-info-t1-edited-moderator.json'), STAND_IN_POST).edited).toBe(1479367868);
    expect(mapForumPost(treePost('comments-deleted-by-author.json')).edited).toBe(1594082893);
  });

  it('replies as "" ends a branch; replies as a Listing nests with parentId chains', () => {
    const single = { ...listingData<T1Data>('api-info-t1-distinguished-stickied.json') };
    expect(single.replies).toBe('');
    const tree = mapCommentTree(loadForumFixture('comments-context-thread.json'));
    const comments = tree.entries.flatMap((e) => (e.kind === 'comment' ? [e] : []));
    expect(comments.map((c) => [c.comment.id, c.depth])).toEqual([
      ['e4j4830', 0],
      ['edisd6j', 1],
      ['e7q58bn', 1],
    ]);
    expect(comments[1].comment.parentId).toBe('t1_e4j4830');
    expect(comments[0].comment.parentId).toBe('t3_98vj9e');
  });

  it('createdUtc comes from created_utc, never from the 8-hour-shifted created', () => {
    const data = listingData<T1Data & { created: number }>('api-info-t1-distinguished-stickied.json');
    expect(data.created - data.created_utc!).toBe(28800);
    const comment = mapForumComment(data, STAND_IN_POST);
    expect(comment.createdUtc).toBe(1594857973);
    expect(comment.createdAt).toBe('2020-07-16T00:06:13.000Z');
  });

  it('url_overridden_by_dest and post_hint absent → null; url is the absolute post URL', () => {
    const self = mapForumPost(listingData<T3Data>('api-info-t3.json'));
    expect(self.urlOverriddenByDest).toBeNull();
    expect(self.postHint).toBeNull();
    expect(self.isSelf).toBe(true);
    const gallery = mapForumPost(treePost('comments-gallery.json'));
    expect(gallery.postHint).toBeNull();
    expect(gallery.urlOverriddenByDest).toBe('https://www.reddit.com/gallery/1o1h8pq');
    expect(gallery.url).toMatch(/^https:\/\/www\.reddit\.com\/r\/.+\/comments\/1o1h8pq\//);
  });

  it('a pre-2020 link post without url_overridden_by_dest takes its target from url', () => {
    const data = { ...listingData<T3Data>('api-info-mixed-t1-t3-t5.json', 7) };
    delete data.url_overridden_by_dest;
    expect(mapForumPost(data).urlOverriddenByDest).toBe('https://en.wikipedia.org/wiki/Korematsu_v._United_States');
  });

  it('fields absent in old payloads get documented defaults (spoiler, subscribers, removal, ratio)', () => {
    const data = { ...listingData<T3Data>('api-info-t3.json') };
    delete data.spoiler;
    delete data.subreddit_subscribers;
    delete data.removed_by_category;
    delete data.upvote_ratio;
    const post = mapForumPost(data);
    expect([post.spoiler, post.subforumSubscribers, post.removedByCategory, post.upvoteRatio]).toEqual([false, 0, null, 1]);
  });

  it('post deleted by its author: removed_by_category "deleted", author and selftext "[deleted]"', () => {
    const post = mapForumPost(treePost('comments-deleted-by-author.json'));
    expect([post.removedByCategory, post.author, post.selftext]).toEqual(['deleted', '[deleted]', '[deleted]']);
  });

  it('post removed by a moderator keeps removed_by_category "moderator" and an empty tree', () => {
    const tree = mapCommentTree(loadForumFixture('comments-removed-by-moderator.json'));
    expect(tree.post.removedByCategory).toBe('moderator');
    // Recorded as the moderator saw it: the body is still there for them, empty here.
    expect(tree.post.selftext).toBe('');
    expect(tree.entries).toEqual([]);
  });

  it('removed comment: body "[removed]", author "[deleted]", score hidden', () => {
    const c = mapForumComment(listingData<T1Data>('api-info-t1-removed.json'), STAND_IN_POST);
    expect([c.body, c.author, c.scoreHidden]).toEqual(['[removed]', '[deleted]', true]);
  });

  it('crosspost: parent id without t3_, relative url made absolute, over_18 kept', () => {
    const post = mapForumPost(treePost('comments-crosspost-nsfw.json'));
    expect(post.crosspostParent).toBe('6vx01b');
    expect(post.urlOverriddenByDest).toBe('https://www.reddit.com/r/reddit_api_test/comments/6vx01b/test_title/');
    expect(post.over18).toBe(true);
    expect(post.url).toBe('https://www.reddit.com/r/<TEST_SUBREDDIT>/comments/hmkfnu/test_title/');
  });

  it('quarantine 403 body → not_public with reason quarantined', () => {
    const error = classifyForumResponse(403, loadForumFixture('r-sub-new-403-quarantined.json'), 'r/x');
    expect(error?.kind).toBe('not_public');
    expect(error?.reason).toBe('quarantined');
  });

  it('banned is a 404 with a reason; a plain 404 or a redirect is not found', () => {
    expect(classifyForumResponse(404, { reason: 'banned', message: 'Not Found', error: 404 }, 'x')).toMatchObject({ kind: 'not_public', reason: 'banned' });
    expect(classifyForumResponse(404, { message: 'Not Found', error: 404 }, 'x')?.kind).toBe('not_found');
    expect(classifyForumResponse(302, null, 'x')?.kind).toBe('not_found');
    expect(classifyForumResponse(403, { reason: 'private' }, 'x')).toMatchObject({ kind: 'not_public', reason: 'private' });
    expect(classifyForumResponse(403, { reason: 'gold_only' }, 'x')).toMatchObject({ kind: 'not_public', reason: 'gold_only' });
    // An HTML 403 is a block in front of the platform, not a community's answer.
    expect(classifyForumResponse(403, '<html>blocked</html>', 'x')).toMatchObject({ kind: 'unavailable', status: 403 });
    expect(classifyForumResponse(500, null, 'x')?.kind).toBe('unavailable');
  });

  it('posts keep quarantine=false inside a quarantined community; the community is what is checked', () => {
    const listing = mapPostListing(loadForumFixture('r-sub-top-quarantined-optin.json'));
    expect(listing.items.length).toBeGreaterThan(0);
    expect(subforumNotPublicReason({ subforumType: 'restricted', quarantine: true })).toBe('quarantined');
  });

  it('"continue this thread" more stub (id "_") and counted more stubs', () => {
    const deep = mapCommentTree(loadForumFixture('comments-continue-thread.json'));
    const last = deep.entries.at(-1)!;
    expect(last).toMatchObject({ kind: 'more', more: { id: '_', continueThread: true, count: 0, depth: 10, parentId: 't1_dkk4pwe' } });
    const context = mapCommentTree(loadForumFixture('comments-context-thread.json'));
    const more = context.entries.find((e) => e.kind === 'more');
    expect(more).toMatchObject({ kind: 'more', more: { count: 31, continueThread: false, parentId: 't1_e4j4830' } });
  });

  it('private community in /api/info: null counters read as 0/false and it is flagged not public', () => {
    const sub = mapSubforum(listingData<T5Data>('api-info-mixed-t1-t3-t5.json', 5));
    expect([sub.subforumType, sub.subscribers, sub.over18, sub.quarantine, sub.lang]).toEqual(['private', 0, false, false, null]);
    expect(subforumNotPublicReason(sub)).toBe('private');
  });

  it('over_18 on posts vs over18 on communities', () => {
    expect(mapSubforum((loadForumFixture('r-sub-about-nsfw.json') as { data: T5Data }).data).over18).toBe(true);
    expect(mapForumPost(treePost('comments-crosspost-nsfw.json')).over18).toBe(true);
  });

  it('community url relative → absolute, icons "" → null with icon_img fallback', () => {
    const about = (loadForumFixture('r-sub-about.json') as { data: T5Data }).data;
    const sub = mapSubforum(about);
    expect(sub.url).toBe('https://www.reddit.com/r/redditgetsdrawn/');
    expect(sub.id).toBe('t5_2tjl7');
    expect(sub.communityIcon).toMatch(/^https:\/\/styles\.redditmedia\.com\//);
    expect(mapSubforum({ ...about, community_icon: '' }).communityIcon).toBe(about.icon_img);
    expect(mapSubforum({ ...about, community_icon: '', icon_img: '', banner_img: '' })).toMatchObject({ communityIcon: null, bannerImg: null });
  });

  it('distinguished "special" is not one of the spec values and reads as null', () => {
    const special = listingData<T1Data>('user-comments.json', 6);
    expect(special.distinguished).toBe('special');
    expect(mapForumComment(special).distinguished).toBeNull();
    expect(mapForumComment(listingData<T1Data>('user-comments.json', 1)).distinguished).toBe('admin');
  });

  it('comment listings carry link_* inline; the permalink becomes absolute', () => {
    const c = mapForumComment(listingData<T1Data>('r-sub-comments.json'));
    expect(c).toMatchObject({
      linkTitle: "What's the biggest quarantine personal achievement you've made so far?",
      linkAuthor: 'IfllAsleep_',
      linkPermalink: 'https://www.reddit.com/r/AskReddit/comments/kzhq42/whats_the_biggest_quarantine_personal_achievement/',
      numComments: 6,
      over18: false,
      permalink: 'https://www.reddit.com/r/AskReddit/comments/kzhq42/whats_the_biggest_quarantine_personal_achievement/gjo46ch/',
    });
  });

  it('a comment without link_* and without its post cannot be completed', () => {
    expect(() => mapForumComment(listingData<T1Data>('api-info-t1-removed.json'))).toThrow(/owning post/);
  });

  it('2016 comment without permalink gets one under its post URL', () => {
    const c = mapForumComment(listingData<T1Data>('api-info-t1-edited-moderator.json'), STAND_IN_POST);
    expect(c.permalink).toBe(`${STAND_IN_POST.url}da2g5y6/`);
  });

  it('video right after upload: odd domain kept as sent, hosted:video hint, isVideo', () => {
    const post = mapForumPost(treePost('comments-video.json'));
    expect(post).toMatchObject({ isVideo: true, postHint: 'hosted:video', urlOverriddenByDest: 'https://v.redd.it/cvp7y0sk4lze1' });
    expect(post.domain).toContain('/comments/1khufe0/');
  });

  it('promoted posts (no community) are skipped in listings', () => {
    const listing = loadForumFixture('r-sub-new.json') as Listing;
    const ad = { kind: 't3', data: { ...listing.data.children![0].data, subreddit: undefined, promoted: true } };
    const page = mapPostListing({ ...listing, data: { ...listing.data, children: [ad, ...listing.data.children!] } });
    expect(page.items).toHaveLength(listing.data.children!.length);
  });
});
