import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../core/request-context.ts';
import { authenticate } from '../../schema/pipeline/authenticate.ts';

describe('authenticate', () => {
  it('looks a refused key up once per call: the listener and the pipeline both ask', async () => {
    let lookups = 0;
    const deps = { authenticate: async () => (lookups++, { failure: 'unknown' as const }) };
    const ctx = { authorization: 'Bearer svc_live_nope', deps } as unknown as RequestContext;
    await expect(authenticate(ctx)).rejects.toMatchObject({ extensions: { code: 'unauthenticated', details: { reason: 'unknown' } } });
    await expect(authenticate(ctx)).rejects.toMatchObject({ extensions: { code: 'unauthenticated', details: { reason: 'unknown' } } });
    expect(lookups).toBe(1);
  });
});
