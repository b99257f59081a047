import type { IncomingMessage, ServerResponse } from 'node:http';
import { formatClassicDate, type WireObject as Wire } from './sim-json.ts';
import { readJsonBody, sendJson } from '../sim-server.ts';
import { matchesSearch, parseSearchQuery } from './microblog-search-query.ts';
import {
  encodeList,
  encodeSpace,
  encodeTweetResult,
  encodeUser,
} from './microblog-wire-encoder.ts';
import type { MicroblogWorld, SimPost, SimUser } from './microblog-world.ts';

/**
 * The simulated platform's HTTP surface: `GET /i/api/graphql/{queryId}/{OperationName}?variables=…` in the
 * platform's wire format (instructions, entries, both cursor shapes, the platform's page sizes and error bodies),
 * plus content control under `/__sim/microblog/…`.
 */

/** Followers and following come in pages the platform chooses. */
export const RELATIONSHIP_PAGE_SIZE = 70;
const DETAIL_MODULES_PER_PAGE = 10;
const MAX_COUNT = 100;
const MAX_QUERY_LENGTH = 512;

type Vars = Record<string, unknown>;

/* ------------------------------------------------------------ timeline building blocks */

const SORT_BASE = 2085474396218064900n;

function sortIndex(position: number): string {
  return (SORT_BASE - BigInt(position)).toString();
}

function tweetItem(result: Wire, promoted = false): Wire {
  return {
    itemType: 'TimelineTweet',
    __typename: 'TimelineTweet',
    tweet_results: { result },
    tweetDisplayType: 'Tweet',
    ...(promoted ? { promotedMetadata: { advertiser_results: {}, disclosureType: 'NoDisclosure', experimentValues: [] } } : {}),
  };
}

function userItem(result: Wire): Wire {
  return { itemType: 'TimelineUser', __typename: 'TimelineUser', user_results: { result }, userDisplayType: 'User' };
}

function itemEntry(entryId: string, position: number, itemContent: Wire): Wire {
  return { entryId, sortIndex: sortIndex(position), content: { entryType: 'TimelineTimelineItem', __typename: 'TimelineTimelineItem', itemContent } };
}

function cursorEntry(kind: 'Top' | 'Bottom', value: string, position: number): Wire {
  return {
    entryId: `cursor-${kind.toLowerCase()}-${sortIndex(position)}`,
    sortIndex: sortIndex(position),
    content: { entryType: 'TimelineTimelineCursor', __typename: 'TimelineTimelineCursor', value, cursorType: kind },
  };
}

/** TweetDetail's bottom cursor is a timeline item wrapping the cursor (FIELD-NOTES 2.2 shape b). */
function wrappedCursorEntry(kind: string, entryId: string, value: string, position: number): Wire {
  return itemEntry(entryId, position, { itemType: 'TimelineTimelineCursor', __typename: 'TimelineTimelineCursor', value, cursorType: kind });
}

function encodeCursor(scope: string, offset: number): string {
  return Buffer.from(`${scope}|${offset}`).toString('base64url');
}

function decodeCursor(scope: string, cursor: unknown): number {
  if (typeof cursor !== 'string' || cursor === '') return 0;
  const [s, n] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const offset = Number(n);
  return s === scope && Number.isInteger(offset) && offset >= 0 ? offset : 0;
}

function countOf(vars: Vars, fallback = 20): number {
  const n = Number(vars.count ?? fallback);
  return Math.max(1, Math.min(MAX_COUNT, Number.isFinite(n) ? Math.floor(n) : fallback));
}

/**
 * One page of a list as AddEntries: items, then top and bottom cursors. Like the platform, a bottom cursor is
 * sent even on the last page; the page after it is empty.
 */
function pagedInstructions<T>(
  paging: MicroblogWorld['paging'],
  scope: string,
  all: T[],
  vars: Vars,
  pageSize: number,
  toEntry: (item: T, position: number) => Wire,
  extra: Wire[] = [],
): Wire[] {
  const offset = decodeCursor(scope, vars.cursor);
  const page = (paging.capAt === undefined ? all : all.slice(0, paging.capAt)).slice(offset, offset + pageSize + (paging.overfill ?? 0));
  // Stalled: the page comes with the cursor it was asked with, so asking for the next page repeats this one.
  const stalled = paging.stallAt !== undefined && offset >= paging.stallAt && typeof vars.cursor === 'string';
  const entries = page.map((item, i) => toEntry(item, offset + i));
  entries.push(cursorEntry('Top', encodeCursor(`${scope}:top`, 0), -1));
  entries.push(cursorEntry('Bottom', stalled ? String(vars.cursor) : encodeCursor(scope, offset + page.length), offset + page.length));
  return [{ type: 'TimelineClearCache' }, ...extra, { type: 'TimelineAddEntries', entries }];
}

function userTimelineBody(result: Wire, instructions: Wire[]): Wire {
  return { data: { user: { result: { ...result, timeline: { timeline: { instructions, metadata: { scribeConfig: { page: 'profile' } } } } } } } };
}

const newestFirst = (a: SimPost, b: SimPost) => b.createdAt - a.createdAt;

function missingStatus(): Wire {
  return {
    errors: [{ message: '_Missing: No status found with that ID.', locations: [{ line: 2, column: 3 }], path: ['threaded_conversation_with_injections_v2'], extensions: { name: 'GenericError', source: 'Server', code: 144, kind: 'NonFatal', tracing: { trace_id: '0'.repeat(16) } }, code: 144, kind: 'NonFatal', name: 'GenericError', source: 'Server' }],
    data: {},
  };
}

/* ------------------------------------------------------------ operations */

export function createMicroblogOperations(world: MicroblogWorld) {
  const tweetEntry = (post: SimPost, position: number) => itemEntry(`tweet-${post.id}`, position, tweetItem(encodeTweetResult(world, post)));
  const userEntry = (user: SimUser, position: number) => itemEntry(`user-${user.id}`, position, userItem(encodeUser(world, user)));
  const visible = (p: SimPost) => world.isVisible(p);
  const publicPost = (p: SimPost) => visible(p) && !world.users.get(p.authorId)!.protected;

  /** Resolves `userId` for timeline operations; returns the body to send when the account cannot be read. */
  function timelineOwner(vars: Vars): { user: SimUser } | { body: Wire } {
    const user = world.users.get(String(vars.userId ?? ''));
    if (!user) return { body: { data: { user: {} } } };
    if (user.suspended) return { body: { data: { user: { result: encodeUser(world, user) } } } };
    return { user };
  }

  function ownTimeline(op: string, vars: Vars, posts: SimPost[], pinned: SimPost | null): Wire {
    const owner = timelineOwner(vars);
    if ('body' in owner) return owner.body;
    const result = { __typename: 'User' };
    // Protected accounts show no timeline to non-followers.
    if (owner.user.protected) return userTimelineBody(result, [{ type: 'TimelineClearCache' }, { type: 'TimelineAddEntries', entries: [] }]);
    const firstPage = !vars.cursor;
    const pin = firstPage && pinned && visible(pinned) ? [{ type: 'TimelinePinEntry', entry: itemEntry(`tweet-${pinned.id}`, 0, tweetItem(encodeTweetResult(world, pinned))) }] : [];
    const list = posts.filter((p) => visible(p) && p.id !== pinned?.id).sort(newestFirst);
    return userTimelineBody(result, pagedInstructions(world.paging, `${op}:${owner.user.id}`, list, vars, countOf(vars), tweetEntry, pin));
  }

  function userList(op: string, vars: Vars, users: SimUser[], pageSize: number): Wire {
    const owner = timelineOwner(vars);
    if ('body' in owner) return owner.body;
    if (owner.user.protected) return userTimelineBody({ __typename: 'User' }, [{ type: 'TimelineAddEntries', entries: [] }]);
    // Suspended accounts stay in the list as UserUnavailable, as the platform lists them (Retweeters.json).
    return userTimelineBody({ __typename: 'User' }, pagedInstructions(world.paging, `${op}:${owner.user.id}`, users, vars, pageSize, userEntry));
  }

  function relationship(map: Map<string, string[]>, vars: Vars): SimUser[] {
    return (map.get(String(vars.userId)) ?? []).map((id) => world.users.get(id)!).filter(Boolean);
  }

  /** Replies of a post ranked the platform's way; the ad reply is not ranked but injected. */
  function rankedReplies(post: SimPost, ranking: string): SimPost[] {
    const replies = world.repliesOf(post).filter((r) => visible(r) && !r.promoted);
    if (ranking === 'Recency') return replies.sort(newestFirst);
    if (ranking === 'Likes') return replies.sort((a, b) => b.likeCount - a.likeCount || newestFirst(a, b));
    // Relevance: the author's own continuation first, then verified and liked replies.
    const score = (r: SimPost) =>
      (r.authorId === post.authorId ? 1e9 : 0) + (world.users.get(r.authorId)!.verifiedType !== 'none' ? 1e6 : 0) + r.likeCount;
    return replies.sort((a, b) => score(b) - score(a) || a.createdAt - b.createdAt);
  }

  function conversationModule(root: SimPost, ranking: string, position: number): Wire {
    const chain = [root];
    let cursor = root;
    while (chain.length < 3) {
      const next = rankedReplies(cursor, ranking)[0];
      if (!next) break;
      chain.push(next);
      cursor = next;
    }
    const items = chain.map((p) => ({ entryId: `conversationthread-${root.id}-tweet-${p.id}`, item: { itemContent: tweetItem(encodeTweetResult(world, p)) } }));
    // Anything not shown under this module (deeper replies, or siblings of shown ones) sits behind ShowMore.
    const hidden = rankedReplies(cursor, ranking).length > 0 || chain.slice(0, -1).some((p) => rankedReplies(p, ranking).length > 1);
    if (hidden) {
      items.push({
        entryId: `conversationthread-${root.id}-cursor-showmore-${sortIndex(position)}`,
        item: { itemContent: { itemType: 'TimelineTimelineCursor', __typename: 'TimelineTimelineCursor', value: encodeCursor(`more:${cursor.id}`, 0), cursorType: 'ShowMore' } },
      });
    }
    return {
      entryId: `conversationthread-${root.id}`,
      sortIndex: sortIndex(position),
      content: { entryType: 'TimelineTimelineModule', __typename: 'TimelineTimelineModule', items, displayType: 'VerticalConversation' },
    };
  }

  function tweetDetail(vars: Vars): Wire {
    const post = world.posts.get(String(vars.focalTweetId ?? ''));
    if (!post || post.deleted) return missingStatus();
    const ranking = String(vars.rankingMode ?? 'Relevance');
    const scope = `detail:${post.id}:${ranking}`;
    const offset = decodeCursor(scope, vars.cursor);
    const entries: Wire[] = [];
    const hidden = encodeTweetResult(world, post).__typename !== 'Tweet';
    if (offset === 0) {
      const ancestors: SimPost[] = [];
      for (let p = post.inReplyToId ? world.posts.get(post.inReplyToId) : undefined; p && ancestors.length < 20; p = p.inReplyToId ? world.posts.get(p.inReplyToId) : undefined) {
        ancestors.unshift(p);
      }
      ancestors.forEach((a, i) => {
        const result = a.deleted
          ? { __typename: 'TweetTombstone', tombstone: { __typename: 'TextTombstone', text: { text: 'This Post was deleted by the Post author. Learn more', entities: [] } } }
          : encodeTweetResult(world, a);
        entries.push(itemEntry(`tweet-${a.id}`, i, tweetItem(result)));
      });
      entries.push(itemEntry(`tweet-${post.id}`, ancestors.length, tweetItem(encodeTweetResult(world, post, { fullArticle: true }))));
    }
    const roots = hidden ? [] : rankedReplies(post, ranking);
    const page = roots.slice(offset, offset + DETAIL_MODULES_PER_PAGE);
    page.forEach((root, i) => {
      entries.push(conversationModule(root, ranking, 100 + offset + i));
      const ad = offset === 0 && i === 1 ? world.repliesOf(post).find((r) => r.promoted && visible(r)) : undefined;
      if (ad) entries.push(itemEntry(`promoted-tweet-${ad.id}-${sortIndex(i)}`, 100 + i, tweetItem(encodeTweetResult(world, ad), true)));
    });
    if (offset + page.length < roots.length) {
      entries.push(wrappedCursorEntry('Bottom', `cursor-bottom-${sortIndex(offset)}`, encodeCursor(scope, offset + page.length), 10_000));
    }
    return {
      data: {
        threaded_conversation_with_injections_v2: {
          instructions: [
            ...(offset === 0 ? [{ type: 'TimelineClearCache' }] : []),
            { type: 'TimelineAddEntries', entries },
            { type: 'TimelineTerminateTimeline', direction: 'Top' },
          ],
        },
      },
    };
  }

  function search(vars: Vars): Wire {
    const raw = String(vars.rawQuery ?? '');
    if (Array.from(raw).length > MAX_QUERY_LENGTH) {
      return {
        errors: [{ message: `BadRequest: Raw query length ${Array.from(raw).length} exceeds max allowed ${MAX_QUERY_LENGTH}`, locations: [{ line: 4, column: 7 }], path: ['search_by_raw_query', 'search_timeline', 'timeline'], extensions: { name: 'BadRequestError', source: 'Client', code: 214, kind: 'Validation', tracing: { trace_id: '0'.repeat(32) } }, code: 214, kind: 'Validation', name: 'BadRequestError', source: 'Client' }],
        data: {},
      };
    }
    const product = String(vars.product ?? 'Top');
    const scope = `search:${product}:${raw}`;
    let instructions: Wire[];
    if (product === 'People') {
      const terms = raw.toLowerCase().split(/\s+/).filter(Boolean).map((t) => t.replace(/^@/, ''));
      const users = [...world.users.values()]
        .filter((u) => !u.suspended && terms.every((t) => `${u.username} ${u.name} ${u.bio}`.toLowerCase().includes(t)))
        .sort((a, b) => (world.followers.get(b.id)?.length ?? 0) - (world.followers.get(a.id)?.length ?? 0));
      instructions = pagedInstructions(world.paging, scope, users, vars, countOf(vars), userEntry);
    } else {
      const q = parseSearchQuery(raw);
      let posts = world.timeline.filter((p) => publicPost(p) && matchesSearch(world, p, q));
      if (product === 'Media') posts = posts.filter((p) => p.media.length > 0);
      posts = product === 'Top' ? posts.sort((a, b) => b.likeCount - a.likeCount || newestFirst(a, b)) : posts.reverse();
      instructions = pagedInstructions(world.paging, scope, posts, vars, countOf(vars), tweetEntry);
    }
    return { data: { search_by_raw_query: { search_timeline: { timeline: { instructions } } } } };
  }

  const operations: Record<string, (vars: Vars) => Wire> = {
    TweetResultsByRestIds: (vars) => {
      const ids = Array.isArray(vars.tweetIds) ? vars.tweetIds.map(String) : [];
      return {
        data: {
          tweetResult: ids.map((id) => {
            const post = world.posts.get(id);
            // Ids that cannot be returned come back as empty slots.
            return post && !post.deleted ? { result: encodeTweetResult(world, post) } : {};
          }),
        },
      };
    },
    TweetDetail: tweetDetail,
    Retweeters: (vars) => {
      const post = world.posts.get(String(vars.tweetId ?? ''));
      const reposters = post && visible(post)
        ? post.editIds.flatMap((id) => world.repostsOf.get(id) ?? []).filter((r) => !r.deleted).sort(newestFirst).map((r) => world.users.get(r.authorId)!)
        : [];
      // Suspended reposters stay in the list as UserUnavailable, as recorded.
      return { data: { retweeters_timeline: { timeline: { instructions: pagedInstructions(world.paging, `rt:${vars.tweetId}`, reposters, vars, countOf(vars), userEntry) } } } };
    },
    UserByScreenName: (vars) => {
      const user = world.userByName(String(vars.screen_name ?? ''));
      return user ? { data: { user: { result: encodeUser(world, user) } } } : { data: {} };
    },
    UserByRestId: (vars) => {
      const user = world.users.get(String(vars.userId ?? ''));
      return user ? { data: { user: { result: encodeUser(world, user) } } } : { data: {} };
    },
    UsersByRestIds: (vars) => {
      const ids = Array.isArray(vars.userIds) ? vars.userIds.map(String) : [];
      return { data: { users: ids.map((id) => (world.users.has(id) ? { result: encodeUser(world, world.users.get(id)!) } : {})) } };
    },
    AboutAccountQuery: (vars) => {
      const user = world.userByName(String(vars.screenName ?? ''));
      if (!user) return { data: {} };
      const base = encodeUser(world, user);
      if (base.__typename !== 'User') return { data: { user_result_by_screen_name: { result: base } } };
      return {
        data: {
          user_result_by_screen_name: {
            id: Buffer.from(`UserResults:${user.id}`).toString('base64'),
            result: {
              __typename: 'User',
              rest_id: user.id,
              id: base.id,
              core: { created_at: formatClassicDate(user.createdAt), name: user.name, screen_name: user.username },
              avatar: { image_url: user.avatarUrl },
              is_blue_verified: base.is_blue_verified,
              privacy: { protected: user.protected },
              profile_image_shape: base.profile_image_shape,
              verification: base.verification ?? { verified: user.verifiedType === 'legacy' },
              about_profile: {
                account_based_in: user.basedIn ?? undefined,
                created_country_accurate: true,
                location_accurate: user.basedIn !== null,
                source: user.verifiedType === 'Business' ? 'Web' : 'Android App',
                username_changes: { count: String(user.usernameChanges), ...(user.usernameChanges > 0 ? { last_changed_at_msec: String(user.createdAt + 30 * 86_400_000) } : {}) },
              },
              verification_info: {
                id: Buffer.from(`UserVerificationInfo:${user.id}`).toString('base64'),
                is_identity_verified: user.identityVerified,
                reason: user.verifiedType === 'none' ? undefined : { verified_since_msec: String(user.createdAt + 86_400_000) },
              },
            },
          },
        },
      };
    },
    UserTweets: (vars) => {
      const user = world.users.get(String(vars.userId ?? ''));
      const posts = (world.postsByAuthor.get(String(vars.userId)) ?? []).filter((p) => !p.inReplyToId);
      return ownTimeline('UserTweets', vars, posts, user?.pinnedPostId ? world.posts.get(user.pinnedPostId) ?? null : null);
    },
    UserTweetsAndReplies: (vars) => {
      const user = world.users.get(String(vars.userId ?? ''));
      return ownTimeline('UserTweetsAndReplies', vars, world.postsByAuthor.get(String(vars.userId)) ?? [], user?.pinnedPostId ? world.posts.get(user.pinnedPostId) ?? null : null);
    },
    UserMedia: (vars) => ownTimeline('UserMedia', vars, (world.postsByAuthor.get(String(vars.userId)) ?? []).filter((p) => p.media.length > 0 && !p.repostOfId), null),
    UserHighlightsTweets: (vars) => {
      const user = world.users.get(String(vars.userId ?? ''));
      const posts = (user?.highlightedPostIds ?? []).map((id) => world.posts.get(id)!).filter(Boolean);
      return ownTimeline('UserHighlightsTweets', vars, posts, null);
    },
    UserBusinessProfileTeamTimeline: (vars) => {
      const affiliates = [...world.users.values()].filter((u) => u.affiliateOf === String(vars.userId));
      return userList('Affiliates', vars, affiliates, countOf(vars));
    },
    Followers: (vars) => userList('Followers', vars, relationship(world.followers, vars), RELATIONSHIP_PAGE_SIZE),
    Following: (vars) => userList('Following', vars, relationship(world.following, vars), RELATIONSHIP_PAGE_SIZE),
    SearchTimeline: search,
    ListByRestId: (vars) => {
      const list = world.lists.get(String(vars.listId ?? ''));
      return list ? { data: { list: encodeList(world, list) } } : { data: {} };
    },
    ListMembers: (vars) => {
      const list = world.lists.get(String(vars.listId ?? ''));
      if (!list) return { data: {} };
      const members = list.private ? [] : list.memberIds.map((id) => world.users.get(id)!).filter((u) => u && !u.suspended);
      return { data: { list: { members_timeline: { timeline: { instructions: pagedInstructions(world.paging, `members:${list.id}`, members, vars, countOf(vars), userEntry) } } } } };
    },
    ListLatestTweetsTimeline: (vars) => {
      const list = world.lists.get(String(vars.listId ?? ''));
      if (!list) return { data: {} };
      const members = new Set(list.private ? [] : list.memberIds);
      const posts = world.timeline.filter((p) => members.has(p.authorId) && publicPost(p)).reverse();
      return { data: { list: { tweets_timeline: { timeline: { instructions: pagedInstructions(world.paging, `listposts:${list.id}`, posts, vars, countOf(vars), tweetEntry) } } } } };
    },
    AudioSpaceById: (vars) => {
      const space = world.spaces.get(String(vars.id ?? ''));
      return { data: { audioSpace: space ? encodeSpace(world, space) : {} } };
    },
  };
  return operations;
}

/* ------------------------------------------------------------ HTTP */

function parseVariables(url: URL): Vars {
  const raw = url.searchParams.get('variables');
  if (!raw) return {};
  return JSON.parse(raw) as Vars;
}

export function createMicroblogHandler(world: MicroblogWorld) {
  const operations = createMicroblogOperations(world);
  return async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    if (url.pathname.startsWith('/__sim/microblog/')) {
      await handleControl(world, req, res, url.pathname.slice('/__sim/microblog'.length));
      return;
    }
    const match = /^\/i\/api\/graphql\/[^/]+\/([A-Za-z]+)$/.exec(url.pathname);
    if (!match || req.method !== 'GET') {
      sendJson(res, 404, { errors: [{ message: 'Sorry, that page does not exist', code: 34 }] });
      return;
    }
    const operation = operations[match[1]];
    if (!operation) {
      sendJson(res, 404, { errors: [{ message: `Unknown operation ${match[1]}`, code: 34 }] });
      return;
    }
    let vars: Vars;
    try {
      vars = parseVariables(url);
    } catch {
      sendJson(res, 400, { errors: [{ message: 'BadRequest: variables is not valid JSON', code: 214, kind: 'Validation' }], data: {} });
      return;
    }
    sendJson(res, 200, operation(vars), {
      'x-rate-limit-limit': '500',
      'x-rate-limit-remaining': '499',
      'x-rate-limit-reset': String(Math.floor(Date.now() / 1000) + 900),
    });
  };
}

/** Content control: add, edit, delete and repost at a given time (`at`, epoch ms; default the world clock). */
async function handleControl(world: MicroblogWorld, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  try {
    const body = (req.method === 'POST' ? await readJsonBody(req) : undefined) as Record<string, unknown> | undefined;
    const userId = (input: Record<string, unknown> | undefined) =>
      String(input?.userId ?? (input?.username ? world.userByName(String(input.username))?.id : '') ?? '');
    const at = typeof body?.at === 'number' ? body.at : undefined;
    let m: RegExpExecArray | null;
    if (path === '/posts' && req.method === 'POST') {
      const post = world.addPost({
        authorId: userId(body),
        text: String(body?.text ?? ''),
        at,
        inReplyToId: body?.inReplyToId ? String(body.inReplyToId) : null,
        quotedId: body?.quotedId ? String(body.quotedId) : null,
      });
      sendJson(res, 201, { id: post.id });
    } else if ((m = /^\/posts\/(\d+)\/edit$/.exec(path)) && req.method === 'POST') {
      sendJson(res, 201, { id: world.editPost(m[1], String(body?.text ?? ''), at).id });
    } else if ((m = /^\/posts\/(\d+)\/repost$/.exec(path)) && req.method === 'POST') {
      sendJson(res, 201, { id: world.repost(userId(body), m[1], at).id });
    } else if ((m = /^\/posts\/(\d+)$/.exec(path)) && req.method === 'DELETE') {
      world.deletePost(m[1]);
      sendJson(res, 200, { deleted: m[1] });
    } else if (path === '/paging' && req.method === 'POST') {
      world.paging = {
        ...(typeof body?.capAt === 'number' ? { capAt: body.capAt } : {}),
        ...(typeof body?.stallAt === 'number' ? { stallAt: body.stallAt } : {}),
        ...(typeof body?.overfill === 'number' ? { overfill: body.overfill } : {}),
      };
      sendJson(res, 200, world.paging);
    } else if (path === '/clock' && req.method === 'POST') {
      world.now = Number(body?.now ?? world.now);
      sendJson(res, 200, { now: world.now });
    } else {
      sendJson(res, 404, { message: `no control route ${req.method} ${path}` });
    }
  } catch (error) {
    sendJson(res, 400, { message: (error as Error).message });
  }
}
