import { z } from 'zod';

export const HealthShape = z
  .object({
    status: z.enum(['ok', 'degraded']).describe('`ok`, or `degraded` when a required dependency is unavailable.'),
    service: z.string().describe('Service name.'),
    version: z.string().describe('Build string `<build_hash>-<timestamp>`.'),
    timestamp: z.iso.datetime().describe('When this answer was made.'),
  })
  .meta({ id: 'Health' })
  .describe('Liveness or readiness of the service.');

export const WhoAmIShape = z
  .object({
    keyId: z.string().describe('Id of the API key in use (not the secret).'),
    label: z.enum(['live', 'test']).describe('Key label: `live` (`svc_live_…`) or `test` (`svc_test_…`).'),
    scopes: z.array(z.string()).describe('Scopes the key holds, as granted (implication is resolved by the service).'),
    createdAt: z.iso.datetime().describe('When the key was created.'),
    expiresAt: z.iso.datetime().nullable().describe('When the key stops working; null for a key that never expires.'),
    workspaceId: z.string().describe('The workspace (account) the key belongs to and spends from.'),
  })
  .meta({ id: 'WhoAmI' })
  .describe('The API key in use and the workspace it belongs to.');

