/**
 * Ids are arithmetic, so a comment id tells which post owns it without an index over millions of comments:
 * comment number = post index × COMMENT_SLOTS + position in that post.
 */
const POST_BASE = parseInt('1a00000', 36);
const COMMENT_BASE = parseInt('g000000', 36);
const SUBFORUM_BASE = parseInt('2q000', 36);
export const COMMENT_SLOTS = 4096;

export function postIdOf(index: number): string {
  return (POST_BASE + index).toString(36);
}

export function postIndexOf(id: string): number | undefined {
  if (!/^[0-9a-z]{1,13}$/.test(id)) return undefined;
  const index = parseInt(id, 36) - POST_BASE;
  return index >= 0 && Number.isSafeInteger(index) ? index : undefined;
}

export function commentIdOf(postIndex: number, position: number): string {
  return (COMMENT_BASE + postIndex * COMMENT_SLOTS + position).toString(36);
}

export function commentLocation(id: string): { postIndex: number; position: number } | undefined {
  if (!/^[0-9a-z]{1,13}$/.test(id)) return undefined;
  const n = parseInt(id, 36) - COMMENT_BASE;
  if (n < 0 || !Number.isSafeInteger(n)) return undefined;
  return { postIndex: Math.floor(n / COMMENT_SLOTS), position: n % COMMENT_SLOTS };
}

export function subforumIdOf(index: number): string {
  return (SUBFORUM_BASE + index).toString(36);
}

/** Independent, reproducible stream per post, so trees can be built lazily in any order. */
export function mixSeed(seed: number, index: number): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  h = Math.imul(h ^ (index + 0x7f4a7c15), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
