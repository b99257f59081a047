import type { CreditsService } from '../adapters/billing/credits-service.ts';
import type { IdentityStore } from '../adapters/identity/identity-store.ts';
import type { MonitorService } from '../adapters/monitors/monitor-service.ts';
import type { PersonStore } from '../adapters/people/person-store.ts';
import type { WebhookService } from '../adapters/webhooks/webhook-service.ts';

/** What the dashboard reads and changes, handed over by the composition root. */
export interface DashboardDeps {
  people: PersonStore;
  identity: IdentityStore;
  credits: CreditsService;
  monitors: MonitorService;
  webhooks: WebhookService;
  clock: () => Date;
}
