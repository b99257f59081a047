import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../core/request-context.ts';
import { authenticate } from '../../schema/pipeline/authenticate.ts';
import { createKeyFailures } from '../../adapters/identity/key-failures.ts';

describe('authenticate', () => {
  it('looks a refused key up once per call: the listener and the pipeline both ask', async () => {
    let lookups = 0;
    const deps = { authenticate: async () => (lookups++, { failure: 'unknown' as const }), keyFailures: createKeyFailures() };
    const ctx = { authorization: 'Bearer svc_live_nope', clientAddress: '192.0.2.1', deps, now: () => new Date('2026-11-25T12:00:00Z') } as unknown as RequestContext;
    await expect(authenticate(ctx)).rejects.toMatchObject({ extensions: { code: 'unauthenticated', details: { reason: 'unknown' } } });
    await expect(authenticate(ctx)).rejects.toMatchObject({ extensions: { code: 'unauthenticated', details: { reason: 'unknown' } } });
    expect(lookups).toBe(1);
  });
});
