import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemsIn } from '../../core/meter.ts';
import { OPERATIONS } from '../../schema/catalogue/index.ts';
import { UNIT_PRICES, type OperationSpec } from '../../schema/catalogue/operation.ts';
import { restCall } from '../support/rest-call.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService({ tiers: { free: { rateLimitPerMinute: 1_000_000 } } });
  ({ key } = await svc.newKey({ scopes: ['read:social'] }));
});
afterAll(async () => {
  await svc?.close();
});

const BILLED = OPERATIONS.filter((op) => op.billing.minimumCredits > 0);

/** The spec's price of what came back: the minimum, each returned unit, and the lookup a first page pays for. */
function priceOfResponse(op: OperationSpec, data: unknown): { credits: number; counted: Record<string, number> } {
  const counted: Record<string, number> = {};
  for (const [unit, source] of Object.entries(op.billing.returns ?? {})) {
    counted[unit] = itemsIn(source === 'data' ? data : (data as Record<string, unknown>)[source]);
  }
  const lookup = op.billing.lookup;
  const user = String((op.example as Record<string, unknown>).user ?? '').replace(/^@/, '');
  const lookups = !lookup ? 0 : lookup.when === 'first_page' ? 1 : /^[0-9]+$/.test(user) ? 1 : 0;
  let credits = op.billing.minimumCredits + (lookup ? UNIT_PRICES[lookup.unit] * lookups : 0);
  for (const [unit, count] of Object.entries(counted)) credits += UNIT_PRICES[unit as keyof typeof UNIT_PRICES] * count;
  return { credits, counted };
}

describe('every billed operation charges its price formula for what it returned', () => {
  it('declares where its returned units are counted', () => {
    for (const op of BILLED) expect(Object.keys(op.billing.returns ?? {}), op.operationId).not.toHaveLength(0);
  });

  it.each(BILLED.map((op) => [op.operationId, op] as const))('%s', async (_id, op) => {
    const res = await restCall(svc, key, op, op.example as Record<string, unknown>);
    expect(res.status, JSON.stringify(res.body)).toBe(op.rest.successStatus ?? 200);
    const { credits, counted } = priceOfResponse(op, res.body.data);
    // The example must return something of every unit it bills, or a forgotten count would go unseen.
    for (const [unit, count] of Object.entries(counted)) expect(count, `${op.operationId} returned no ${unit}`).toBeGreaterThan(0);
    expect(Number(res.headers.get('x-credits-charged'))).toBe(credits);
  });
});
