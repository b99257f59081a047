import { FaultInjector } from '../faults.ts';
import { startSimServer } from '../sim-server.ts';
import { ForumWorld } from './forum-world.ts';
import { createForumHandler } from './forum-routes.ts';
import type { WorldSize } from './forum-world-generator.ts';

export interface ForumSim {
  url: string;
  world: ForumWorld;
  faults: FaultInjector;
  close(): Promise<void>;
}

/** Starts the simulated forum on 127.0.0.1 (a free port unless given). */
export async function startForumSim(opts: { seed?: number; size?: WorldSize; port?: number; rateLimit?: number } = {}): Promise<ForumSim> {
  const world = new ForumWorld({ seed: opts.seed, size: opts.size });
  const faults = new FaultInjector(opts.seed);
  const server = await startSimServer('forum', createForumHandler(world, opts.rateLimit), { port: opts.port, faults });
  return { url: server.url, world, faults, close: server.close };
}
