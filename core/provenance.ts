import type { RequestContext } from './request-context.ts';

export type PlatformName = 'forum' | 'microblog';

/** Where the items of a call came from, and when: one entry per platform the call read. */
export interface Provenance {
  platform: PlatformName;
  /** The upstream answering for that platform: its host, or `simulated` for the in-process simulated platform. */
  upstream: string;
  /** When that upstream first answered this call (an item of a later answer in the same call is at most the call's duration newer). */
  fetchedAt: string;
}

/** Notes an upstream answer; only the first of each platform is kept. */
export function noteFetched(ctx: RequestContext, platform: PlatformName): void {
  ctx.fetched ??= new Map();
  if (!ctx.fetched.has(platform)) ctx.fetched.set(platform, ctx.now());
}

export function provenanceOf(ctx: RequestContext): Provenance[] {
  const provenance: Provenance[] = [];
  for (const [platform, at] of ctx.fetched ?? []) provenance.push({ platform, upstream: ctx.deps.upstreams[platform], fetchedAt: at.toISOString() });
  return provenance;
}
