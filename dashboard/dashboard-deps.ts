import type { IncomingMessage } from 'node:http';
import type { CreditsService } from '../adapters/billing/credits-service.ts';
import type { IdentityStore } from '../adapters/identity/identity-store.ts';
import type { MonitorService } from '../adapters/monitors/monitor-service.ts';
import type { PersonStore } from '../adapters/people/person-store.ts';
import type { UsageCharges } from '../adapters/usage/usage-charges.ts';
import type { WebhookService } from '../adapters/webhooks/webhook-service.ts';

/** What the dashboard reads and changes, handed over by the composition root. */
export interface DashboardDeps {
  people: PersonStore;
  identity: IdentityStore;
  credits: CreditsService;
  /** The usage ledger (charges per call and operation), for the spend chart and recent charges. */
  usage: UsageCharges;
  monitors: MonitorService;
  webhooks: WebhookService;
  clock: () => Date;
  /** SVC_PUBLIC_URL is https: every cookie is Secure (and `__Host-`), whatever headers a request arrives with. */
  httpsPublicUrl: boolean;
  /**
   * Ends the MCP sign-in's own session in this browser (the authorization server keeps one apart from the
   * dashboard's), so signing out also means the next authorization asks to sign in again.
   */
  endOAuthSession: (req: IncomingMessage) => Promise<void>;
}
