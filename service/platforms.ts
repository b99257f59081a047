import type { ServiceConfig } from './config.ts';

/** The upstream platform clients the resolvers use, and what must be closed on shutdown. */
export interface Platforms {
  clients: Record<string, unknown>;
  /** Base URLs of the in-process simulated platforms, when they run. */
  simulated: Record<string, string>;
  close(): Promise<void>;
}

export async function startPlatforms(_config: ServiceConfig): Promise<Platforms> {
  return { clients: {}, simulated: {}, close: async () => {} };
}
