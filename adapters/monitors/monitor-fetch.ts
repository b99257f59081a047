import type { ForumClient } from '../forum/forum-client.ts';
import type { MicroblogClient } from '../microblog/microblog-client.ts';
import { forumQuery, matchesKeywords, microblogQuery, parseKeywords, type KeywordTerm } from './keyword-query.ts';
import { forumCommentCandidate, forumPostCandidate, microblogPostCandidate, type Candidate } from './monitor-items.ts';
import type { MonitorSource, MonitorTarget } from './monitor-targets.ts';

/**
 * One upstream read of a run, priced as the read operation that makes the same call would be: the 1-credit minimum
 * plus each returned item at its unit price (forum post or comment 3, microblog post 1, a profile lookup 2).
 */
export interface PlannedRead {
  /** The most this read can cost, for the credit hold. */
  maxCredits: number;
  run(): Promise<ReadOutcome>;
}

/**
 * What one read brought back: the items that match the target, and how many others it read (and paid for) that the
 * local checks left out: an exclusion the forum's search does not apply, another author's post in an `author:` search.
 */
export interface ReadOutcome {
  candidates: Candidate[];
  filtered: number;
  credits: number;
}

export interface PlatformReaders {
  forum: ForumClient;
  microblog: MicroblogClient;
}

/** Items read per call: the platforms' page size for these listings. */
const PAGE = 100;
const FORUM_ITEM = 3;
const MICROBLOG_ITEM = 1;
const PROFILE_LOOKUP = 2;

/**
 * The first `bound` items of a page, in the platform's order (newest first): a platform may answer with more than was
 * asked (docs/api-conventions.md, Pages), and a read is never charged above the bound its hold counted.
 */
function within<T>(items: readonly T[], bound = PAGE): T[] {
  return items.slice(0, bound);
}

/** The items read that match the keywords, counted against all that were read. */
function keep(read: Candidate[], terms: readonly KeywordTerm[] | null): Pick<ReadOutcome, 'candidates' | 'filtered'> {
  const candidates = terms ? read.filter((candidate) => matchesKeywords(candidate.text, terms)) : read;
  return { candidates, filtered: read.length - candidates.length };
}

function priced(items: number, perItem: number, extra = 0): number {
  return 1 + extra + items * perItem;
}

/** The reads a run makes for its target and sources. */
export function planReads(target: MonitorTarget, sources: readonly MonitorSource[], clients: PlatformReaders): PlannedRead[] {
  const { forum, microblog } = clients;
  switch (target.kind) {
    case 'search': {
      const terms = parseKeywords(target.keywords);
      const reads: PlannedRead[] = [];
      if (sources.includes('forum')) {
        reads.push({
          maxCredits: priced(PAGE, FORUM_ITEM),
          run: async () => {
            const page = await forum.searchPosts({ q: forumQuery(terms), sort: 'new', t: 'all', limit: PAGE, includeOver18: true });
            const items = within(page.items);
            return { ...keep(items.map(forumPostCandidate), terms), credits: priced(items.length, FORUM_ITEM) };
          },
        });
      }
      if (sources.includes('microblog')) {
        reads.push({
          maxCredits: priced(PAGE, MICROBLOG_ITEM),
          run: async () => {
            const page = await microblog.searchPosts(microblogQuery(terms), 'Latest', { count: PAGE });
            const items = within(page.items);
            return { ...keep(items.map((post) => microblogPostCandidate(post)), terms), credits: priced(items.length, MICROBLOG_ITEM) };
          },
        });
      }
      return reads;
    }
    case 'subforum': {
      const terms = target.keywords ? parseKeywords(target.keywords) : null;
      const positive = terms?.filter((term) => !term.excluded) ?? [];
      return [
        {
          maxCredits: priced(PAGE, FORUM_ITEM),
          run: async () => {
            const page = positive.length
              ? await forum.searchSubforumPosts(target.subforum, { q: forumQuery(positive), sort: 'new', t: 'all', limit: PAGE, includeOver18: true })
              : await forum.listSubforumPosts(target.subforum, { sort: 'new', limit: PAGE });
            const items = within(page.items);
            return { ...keep(items.map(forumPostCandidate), terms), credits: priced(items.length, FORUM_ITEM) };
          },
        },
      ];
    }
    case 'forum_user':
      return [
        {
          maxCredits: priced(PAGE, FORUM_ITEM),
          run: async () => {
            const page = await forum.searchPosts({ q: `author:${target.username}`, sort: 'new', t: 'all', limit: PAGE, includeOver18: true });
            const items = within(page.items);
            const own = items.filter((post) => post.author.toLowerCase() === target.username.toLowerCase());
            return { candidates: own.map(forumPostCandidate), filtered: items.length - own.length, credits: priced(items.length, FORUM_ITEM) };
          },
        },
      ];
    case 'forum_thread':
      return [
        {
          maxCredits: priced(PAGE * 5, FORUM_ITEM),
          run: async () => {
            const tree = await forum.getCommentTree(target.post, { sort: 'new', limit: PAGE * 5, depth: 10 });
            // The tree comes in thread order (each comment followed by its replies): newest first before the cut, so a
            // new reply deep in an older thread is kept rather than the older replies of the newest thread.
            const read = tree.entries.flatMap((entry) => (entry.kind === 'comment' ? [entry.comment] : []));
            const comments = within(read.sort((a, b) => b.createdUtc - a.createdUtc), PAGE * 5);
            return { candidates: comments.map(forumCommentCandidate), filtered: 0, credits: priced(comments.length, FORUM_ITEM) };
          },
        },
      ];
    case 'microblog_user':
      return [
        {
          maxCredits: priced(PAGE, MICROBLOG_ITEM, PROFILE_LOOKUP),
          run: async () => {
            const profile = /^[0-9]+$/.test(target.user) ? await microblog.getUserById(target.user) : await microblog.getUserByUsername(target.user);
            const page = await microblog.getUserTimeline(profile.id, target.includeReplies ? 'replies' : 'posts', { count: PAGE });
            const items = within(page.items);
            return { candidates: items.map((post) => microblogPostCandidate(post)), filtered: 0, credits: priced(items.length, MICROBLOG_ITEM, PROFILE_LOOKUP) };
          },
        },
      ];
    case 'microblog_thread':
      return [
        {
          maxCredits: priced(PAGE, MICROBLOG_ITEM),
          run: async () => {
            const page = await microblog.getReplies(target.post, { rankingMode: 'Recency' });
            const items = within(page.items);
            return { candidates: items.map((post) => microblogPostCandidate(post, 'comment')), filtered: 0, credits: priced(items.length, MICROBLOG_ITEM) };
          },
        },
      ];
    case 'microblog_list':
      return [
        {
          maxCredits: priced(PAGE, MICROBLOG_ITEM),
          run: async () => {
            const page = await microblog.getListPosts(target.list, { count: PAGE });
            const items = within(page.items);
            return { candidates: items.map((post) => microblogPostCandidate(post)), filtered: 0, credits: priced(items.length, MICROBLOG_ITEM) };
          },
        },
      ];
  }
}
