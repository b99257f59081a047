import type { MicroblogClient } from '../../adapters/microblog/microblog-client.ts';
import type { MicroblogSim } from '../../adapters/sim/microblog/microblog-sim.ts';
import type { TestService } from '../support/service.ts';

/** The in-process microblog sim and the client the service uses, for driving faults and counting round trips. */
export function microblogOf(svc: TestService): { sim: MicroblogSim; client: MicroblogClient } {
  const sim = svc.service.platforms.sims.microblog;
  if (!sim) throw new Error('the test service runs without the in-process microblog sim');
  return { sim, client: svc.service.platforms.clients.microblog };
}

