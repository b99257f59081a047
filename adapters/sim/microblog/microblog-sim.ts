import { FaultInjector } from '../faults.ts';
import { startSimServer } from '../sim-server.ts';
import { createMicroblogHandler } from './microblog-routes.ts';
import { generateMicroblogWorld, type WorldSize } from './microblog-world-generator.ts';
import type { MicroblogWorld } from './microblog-world.ts';

export interface MicroblogSim {
  url: string;
  world: MicroblogWorld;
  faults: FaultInjector;
  /** Milliseconds spent generating the world. */
  generationMs: number;
  close(): Promise<void>;
}

/** Starts the simulated microblog on 127.0.0.1: a seeded world served in the platform's web GraphQL format. */
export async function startMicroblogSim(opts: { seed?: number; size?: WorldSize; port?: number; world?: MicroblogWorld } = {}): Promise<MicroblogSim> {
  const started = performance.now();
  const world = opts.world ?? generateMicroblogWorld(opts.seed ?? 1, opts.size ?? 'small');
  const generationMs = performance.now() - started;
  const faults = new FaultInjector(opts.seed ?? 1);
  const server = await startSimServer('microblog', createMicroblogHandler(world), { port: opts.port, faults });
  return { url: server.url, world, faults, generationMs, close: () => server.close() };
}
