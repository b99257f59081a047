import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ForumCommentShape, ForumPostShape, SubforumShape } from '../../../adapters/shapes/forum-shapes.ts';
import { mapCommentTree } from '../../../adapters/forum/comment-tree-mapper.ts';
import { mapForumPost } from '../../../adapters/forum/forum-post-mapper.ts';
import type { OwningPostContext } from '../../../adapters/forum/forum-comment-mapper.ts';
import { mapSubforum } from '../../../adapters/forum/subforum-mapper.ts';
import { asT3, asT5, isListing, isThing } from '../../../adapters/forum/forum-wire.ts';
import { mapCommentListing } from '../../../adapters/forum/listing-mapper.ts';
import { classifyForumResponse } from '../../../adapters/forum/forum-error-classifier.ts';

/** Recorded responses vendored into the project (see test/fixtures/upstream/PROVENANCE.md). */
export const FORUM_FIXTURES = new URL('../../fixtures/upstream/forum-reddit', import.meta.url).pathname;

export function forumFixtureFiles(): string[] {
  return readdirSync(FORUM_FIXTURES).filter((f) => f.endsWith('.json')).sort();
}

export function loadForumFixture(name: string): unknown {
  return JSON.parse(readFileSync(join(FORUM_FIXTURES, name), 'utf8'));
}

/** `/api/info` comments carry no post fields; fixture tests give them this stand-in post. */
export const STAND_IN_POST: OwningPostContext = {
  title: 'stand-in',
  author: 'someone',
  url: 'https://www.reddit.com/r/x/comments/abc/stand_in/',
  numComments: 1,
  over18: false,
};

export interface MappedCounts {
  posts: number;
  comments: number;
  subforums: number;
  mores: number;
  errors: number;
}

/**
 * Maps any forum payload (tree, Listing, single Thing or error body) the way the client does, validating
 * every object against the shapes. Used for the recorded fixtures and for the simulated platform alike.
 */
export function mapAndValidateForumPayload(body: unknown, status = 200): MappedCounts {
  const counts: MappedCounts = { posts: 0, comments: 0, subforums: 0, mores: 0, errors: 0 };
  if (Array.isArray(body)) {
    const tree = mapCommentTree(body);
    ForumPostShape.parse(tree.post);
    counts.posts++;
    for (const entry of tree.entries) {
      if (entry.kind === 'comment') {
        ForumCommentShape.parse(entry.comment);
        expect(entry.comment.postId).toBe(tree.post.id);
        counts.comments++;
      } else counts.mores++;
    }
    return counts;
  }
  if (isListing(body)) {
    // Comments of a listing are mapped as a page: inline post fields when present, the stand-in otherwise.
    for (const comment of mapCommentListing(body, () => STAND_IN_POST).items) {
      ForumCommentShape.parse(comment);
      counts.comments++;
    }
    for (const child of body.data.children ?? []) {
      if (child.kind === 't3') {
        ForumPostShape.parse(mapForumPost(asT3(child)));
        counts.posts++;
      } else if (child.kind === 't5') {
        SubforumShape.parse(mapSubforum(asT5(child)));
        counts.subforums++;
      } else if (child.kind !== 't1') throw new Error(`unexpected kind ${child.kind}`);
    }
    return counts;
  }
  if (isThing(body) && body.kind === 't5') {
    SubforumShape.parse(mapSubforum(asT5(body)));
    counts.subforums++;
    return counts;
  }
  const error = classifyForumResponse(status, body, 'fixture');
  if (!error) throw new Error('payload is neither content nor an error');
  counts.errors++;
  return counts;
}
