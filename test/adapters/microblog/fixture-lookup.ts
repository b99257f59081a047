import { readFileSync } from 'node:fs';
import { join } from 'node:path';
/** Recorded JSON as the tests explore it: any member may be read (the mappers themselves take typed wire). */
export type Wire = ReturnType<typeof JSON.parse>;

/** Recorded responses vendored into the project (see test/fixtures/upstream/PROVENANCE.md). */
export const MICROBLOG_FIXTURES = new URL('../../fixtures/upstream/microblog-x', import.meta.url).pathname;

export function loadFixture(file: string): Wire {
  return JSON.parse(readFileSync(join(MICROBLOG_FIXTURES, file), 'utf8'));
}

/** The first tweet object with this rest_id anywhere in a recording (top level, quoted or reposted). */
export function findTweet(body: Wire, id: string): Wire {
  const seen: Wire[] = [body];
  while (seen.length > 0) {
    const o = seen.pop();
    if (!o || typeof o !== 'object') continue;
    if (o.rest_id === id && o.legacy && (o.__typename === undefined || o.__typename === 'Tweet')) return o;
    for (const v of Object.values(o)) seen.push(v);
  }
  throw new Error(`tweet ${id} not in fixture`);
}
