import type { ForumSim } from '../../adapters/sim/forum/forum-sim.ts';
import type { ForumClient } from '../../adapters/forum/forum-client.ts';
import type { TestService } from '../support/service.ts';

/** The in-process forum sim and the client the service uses, for driving faults and counting round trips. */
export function forumOf(svc: TestService): { sim: ForumSim; client: ForumClient } {
  const sim = svc.service.platforms.sims.forum;
  if (!sim) throw new Error('the test service runs without the in-process forum sim');
  return { sim, client: svc.service.platforms.clients.forum };
}

/** A string of base-36 post ids of the default world, from index `from`. */
export function postIds(count: number, from = 0): string[] {
  const base = parseInt('1a00000', 36);
  return Array.from({ length: count }, (_, i) => (base + from + i).toString(36));
}
