import { createHash } from 'node:crypto';
import { storableText } from '../db/storable-text.ts';
import type { ForumComment, ForumPost } from '../shapes/forum-shapes.ts';
import { editOriginOf } from '../microblog/microblog-post-mapper.ts';
import type { MicroblogPost } from '../shapes/microblog-shapes.ts';
import type { MonitorResult } from '../shapes/monitor-shapes.ts';

/** An item a run read, as a result would show it, with the keys it is recognised by. */
export interface Candidate {
  result: Omit<MonitorResult, 'id' | 'monitorId' | 'firstSeenAt'>;
  /** Text the keywords are checked against. */
  text: string;
  /** Its own identity: `<source>:<kind>:<id>`. */
  idKey: string;
  /** The identities of what it stands for: a crosspost's parent, a repost's original, an edit's first version. */
  linkKeys: string[];
  /** Its normalised content, so a copy under another id is recognised; null when too short to tell copies apart. */
  fingerprint: string | null;
  /** Epoch milliseconds, for newest-first ordering. */
  createdAt: number;
}

/** Shorter normalised texts are too generic to call two items the same ("thanks!", "+1"). */
const MIN_FINGERPRINT_CHARS = 24;

/**
 * The content fingerprint: NFKC, case folded, links, mentions and punctuation removed, whitespace collapsed, hashed.
 * An edit that changes only spacing, case or a tracking link keeps it; a repost copied under a new id matches it.
 */
export function fingerprintOf(text: string): string | null {
  const normal = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/^rt @\w+:\s*/, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  if (normal.length < MIN_FINGERPRINT_CHARS) return null;
  return createHash('sha256').update(normal).digest('base64url').slice(0, 22);
}

export function forumPostCandidate(post: ForumPost): Candidate {
  const text = `${post.title}\n${post.selftext}`;
  return {
    result: {
      itemType: 'post',
      source: 'forum',
      externalId: post.id,
      url: post.url,
      title: post.title,
      body: post.selftext || null,
      authorHandle: post.author,
      communityName: post.subforum,
    },
    text,
    idKey: `forum:post:${post.id}`,
    linkKeys: post.crosspostParent ? [`forum:post:${post.crosspostParent}`] : [],
    fingerprint: fingerprintOf(text),
    createdAt: post.createdUtc * 1000,
  };
}

export function forumCommentCandidate(comment: ForumComment): Candidate {
  return {
    result: {
      itemType: 'comment',
      source: 'forum',
      externalId: comment.id,
      url: comment.permalink,
      title: null,
      body: comment.body,
      authorHandle: comment.author,
      communityName: comment.subforum,
    },
    text: comment.body,
    idKey: `forum:comment:${comment.id}`,
    linkKeys: [],
    fingerprint: fingerprintOf(comment.body),
    createdAt: comment.createdUtc * 1000,
  };
}

/** A repost stands for its original: its own text is a truncated `RT @user: …`, so the original's is read. */
export function microblogPostCandidate(post: MicroblogPost, itemType: 'post' | 'comment' = 'post'): Candidate {
  const original = post.repostedPost;
  const text = original ? original.text : post.text;
  return {
    result: {
      itemType,
      source: 'microblog',
      externalId: post.id,
      url: post.url,
      title: null,
      body: text,
      authorHandle: post.author.username,
      communityName: null,
    },
    text,
    idKey: `microblog:post:${post.id}`,
    linkKeys: [original?.id, editOriginOf(post)].filter((id): id is string => id !== undefined).map((id) => `microblog:post:${id}`),
    fingerprint: fingerprintOf(text),
    createdAt: Date.parse(post.createdAt),
  };
}

export type SuppressionReason = 'seen_id' | 'seen_link' | 'seen_content' | 'duplicate_in_run';

export interface DedupOutcome {
  fresh: Candidate[];
  suppressed: Partial<Record<SuppressionReason, number>>;
  /** Every key of every candidate, to record as seen. */
  keys: string[];
}

/** An identity as stored: a platform's id may hold what text cannot (U+0000), replaced as `storableText` does. */
const storedId = (key: string): string => `id:${storableText(key)}`;

/** The keys a candidate is recognised by, as stored: ids and links under `id:`, content under `fp:`. */
export function keysOf(candidate: Candidate): string[] {
  return [storedId(candidate.idKey), ...candidate.linkKeys.map(storedId), ...(candidate.fingerprint ? [`fp:${candidate.fingerprint}`] : [])];
}

/**
 * Only what is new: a candidate is suppressed when its own id was seen (an edit, a re-read), when what it re-posts
 * was seen (a crosspost or repost of a known item, or the known repost of a new original), when its content was seen
 * under another id, or when an earlier candidate of the same run already stands for it.
 */
export function dedupe(candidates: readonly Candidate[], seen: ReadonlySet<string>): DedupOutcome {
  const fresh: Candidate[] = [];
  const suppressed: Partial<Record<SuppressionReason, number>> = {};
  const inRun = new Set<string>();
  const keys: string[] = [];
  for (const candidate of candidates) {
    const own = storedId(candidate.idKey);
    const links = candidate.linkKeys.map(storedId);
    const content = candidate.fingerprint ? `fp:${candidate.fingerprint}` : null;
    const all = keysOf(candidate);
    const reason: SuppressionReason | null = seen.has(own)
      ? 'seen_id'
      : links.some((key) => seen.has(key))
        ? 'seen_link'
        : content && seen.has(content)
          ? 'seen_content'
          : all.some((key) => inRun.has(key))
            ? 'duplicate_in_run'
            : null;
    for (const key of all) inRun.add(key);
    keys.push(...all);
    if (reason) suppressed[reason] = (suppressed[reason] ?? 0) + 1;
    else fresh.push(candidate);
  }
  return { fresh, suppressed, keys };
}
