import { describe, expect, it } from 'vitest';
import { RETENTION } from '../../adapters/db/retention.ts';
import { listMonitorResults, listMonitorRuns } from '../../schema/catalogue/monitors.ts';
import { listWebhookDeliveries } from '../../schema/catalogue/webhooks.ts';

describe('retention keeps what the listings can show', () => {
  it.each([
    ['listMonitorRuns', listMonitorRuns],
    ['listMonitorResults', listMonitorResults],
    ['listWebhookDeliveries', listWebhookDeliveries],
  ])('%s asks for at most RETENTION.newestKept rows', (_name, op) => {
    const id = '00000000-0000-4000-8000-000000000000';
    expect(op.input.safeParse({ id, limit: RETENTION.newestKept }).success).toBe(true);
    expect(op.input.safeParse({ id, limit: RETENTION.newestKept + 1 }).success).toBe(false);
  });
});
