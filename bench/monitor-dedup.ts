import { dedupe, fingerprintOf, forumPostCandidate, keysOf } from '../adapters/monitors/monitor-items.ts';
import type { ForumPost } from '../adapters/shapes/forum-shapes.ts';

/**
 * CPU time to keep only what is new: 10,000 candidates (mapped, fingerprinted, deduplicated) against a monitor that
 * has seen 100,000 items. Goal: under 1 s. Half the candidates were seen (by id, by crosspost link or by content).
 */
const SEEN = 100_000;
const CANDIDATES = 10_000;

function post(i: number, crosspostOf: number | null = null): ForumPost {
  return {
    id: i.toString(36),
    subforum: 'bench',
    title: `Post number ${i} about the monitor benchmark`,
    selftext: `Body ${i}: ${'lorem ipsum dolor sit amet '.repeat(8)}`,
    author: 'bench',
    permalink: `/r/bench/comments/${i.toString(36)}/`,
    url: `https://www.reddit.com/r/bench/comments/${i.toString(36)}/`,
    score: 1, upvoteRatio: 1, numComments: 0, over18: false, createdUtc: 1_700_000_000 + i, createdAt: new Date((1_700_000_000 + i) * 1000).toISOString(),
    domain: 'self.bench', isSelf: true, urlOverriddenByDest: null, linkFlairText: null, authorFlairText: null, distinguished: null,
    stickied: false, locked: false, archived: false, spoiler: false, edited: null, numCrossposts: 0,
    crosspostParent: crosspostOf === null ? null : crosspostOf.toString(36), removedByCategory: null, subforumSubscribers: 1, postHint: null, isVideo: false,
  };
}

const seen = new Set<string>();
for (let i = 0; i < SEEN; i++) for (const key of keysOf(forumPostCandidate(post(i)))) seen.add(key);

const started = process.cpuUsage();
const wall = performance.now();
const candidates = Array.from({ length: CANDIDATES }, (_, i) => {
  if (i % 4 === 0) return forumPostCandidate(post(i));
  if (i % 4 === 1) return forumPostCandidate(post(SEEN + i, i));
  return forumPostCandidate(post(SEEN + i));
});
const outcome = dedupe(candidates, seen);
const cpu = process.cpuUsage(started);
const cpuMs = (cpu.user + cpu.system) / 1000;

console.log(`dedup of ${CANDIDATES} candidates against ${SEEN} seen (${seen.size} keys): ${cpuMs.toFixed(0)} ms CPU, ${(performance.now() - wall).toFixed(0)} ms wall`);
console.log(`  new ${outcome.fresh.length}, suppressed ${JSON.stringify(outcome.suppressed)}, fingerprint sample ${fingerprintOf(candidates[2].text)}`);
console.log(`  goal < 1000 ms CPU: ${cpuMs < 1000 ? 'met' : 'MISSED'}`);
