import { createForumClient } from '../adapters/forum/forum-client.ts';
import { startForumSim, type ForumSim } from '../adapters/sim/forum/forum-sim.ts';
import { createMicroblogClient } from '../adapters/microblog/microblog-client.ts';
import { startMicroblogSim, type MicroblogSim } from '../adapters/sim/microblog/microblog-sim.ts';
import type { PlatformClients } from '../core/service-deps.ts';
import type { ServiceConfig } from './config.ts';
import { startSimPublisher } from '../adapters/sim/sim-publisher.ts';

/** The upstream platform clients the resolvers use, and what must be closed on shutdown. */
export interface Platforms {
  clients: PlatformClients;
  /** Base URLs of the in-process simulated platforms, when they run. */
  simulated: Record<string, string>;
  /** Each platform's upstream as provenance names it: the configured host, or `simulated`. */
  upstreams: Record<keyof PlatformClients, string>;
  /** The in-process simulated platforms (tests drive their worlds and fault injectors). */
  sims: { forum?: ForumSim; microblog?: MicroblogSim };
  close(): Promise<void>;
}

/**
 * Points each platform's client at its configured upstream, or at an in-process simulated platform served
 * over loopback HTTP in the real wire format, so the same client code runs either way.
 */
export async function startPlatforms(config: ServiceConfig): Promise<Platforms> {
  const closers: Array<() => Promise<void>> = [];
  const simulated: Record<string, string> = {};
  const sims: Platforms['sims'] = {};
  try {
    let forumOptions = config.forumUpstream;
    if (!forumOptions) {
      sims.forum = await startForumSim();
      closers.push(sims.forum.close);
      forumOptions = { baseUrl: (simulated.forum = sims.forum.url), headers: {} };
    }
    const forum = createForumClient(forumOptions);
    closers.push(() => forum.close());
    let microblogOptions = config.microblogUpstream;
    if (!microblogOptions) {
      sims.microblog = await startMicroblogSim();
      closers.push(sims.microblog.close);
      microblogOptions = { baseUrl: (simulated.microblog = sims.microblog.url) };
    }
    const microblog = createMicroblogClient(microblogOptions);
    closers.push(() => microblog.close());
    if (config.simPublish && sims.forum && sims.microblog) {
      const publisher = startSimPublisher(sims.forum.world, sims.microblog.world);
      closers.push(async () => publisher.stop());
    }
    // A simulated platform's loopback address means nothing to a client: it is named as such instead.
    const upstreamOf = (name: string, baseUrl: string) => (simulated[name] ? 'simulated' : new URL(baseUrl).host);
    return {
      clients: { forum, microblog },
      simulated,
      upstreams: { forum: upstreamOf('forum', forumOptions.baseUrl), microblog: upstreamOf('microblog', microblogOptions.baseUrl) },
      sims,
      close: async () => {
        for (const close of closers.splice(0).reverse()) await close();
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    throw error;
  }
}
