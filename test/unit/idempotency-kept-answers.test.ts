import { describe, expect, it } from 'vitest';
import type { IdempotencyStore } from '../../adapters/db/idempotency-store.ts';
import { ResourceError } from '../../adapters/db/resource-error.ts';
import { envelopeOfError, errorEnvelope, type EnvelopeResponse } from '../../schema/operation-envelope.ts';
import { idempotent } from '../../schema/pipeline/idempotency.ts';
import { toCatalogueError } from '../../schema/pipeline/error-mapping.ts';

/** A store that records what became of the key: kept (with its status) or released. */
function recordingStore(claimed: Awaited<ReturnType<IdempotencyStore['claim']>> = { kind: 'new' }) {
  const outcome: string[] = [];
  const store: IdempotencyStore = {
    claim: async () => claimed,
    complete: async (_scope, _key, response) => {
      outcome.push(`kept ${response.status}`);
    },
    release: async () => {
      outcome.push('released');
    },
    sweep: async () => 0,
  };
  return { store, outcome };
}

const claim = { scope: 'ws', key: 'k1', hash: 'h', requestId: 'req_1' };
const scheduleBusy = envelopeOfError('req_1', toCatalogueError(new ResourceError('state', 'busy', { reason: 'schedule_busy' }, 1)));

describe('which answers an Idempotency-Key keeps', () => {
  const cases: [string, EnvelopeResponse, string][] = [
    ['a success', { status: 201, headers: {}, body: { data: { id: 'm1' } }, isError: false }, 'kept 201'],
    ['404 the operation answered', errorEnvelope('req_1', 'not_found'), 'kept 404'],
    ['409 of state (a tier limit)', errorEnvelope('req_1', 'conflict', 'limit', { limit: 'maxMonitors' }), 'kept 409'],
    ['400 validation', errorEnvelope('req_1', 'invalid_request', 'bad', { field: 'name' }), 'released'],
    ['401', errorEnvelope('req_1', 'unauthenticated'), 'released'],
    ['402 insufficient_credits', errorEnvelope('req_1', 'insufficient_credits'), 'released'],
    ['402 spending_paused', errorEnvelope('req_1', 'spending_paused'), 'released'],
    ['403', errorEnvelope('req_1', 'insufficient_scope'), 'released'],
    ['429 rate_limited', errorEnvelope('req_1', 'rate_limited'), 'released'],
    ['429 credits_held', errorEnvelope('req_1', 'credits_held'), 'released'],
    ['409 schedule_busy', scheduleBusy, 'released'],
    ['503 not_ready', errorEnvelope('req_1', 'not_ready'), 'released'],
    ['500', errorEnvelope('req_1', 'internal_error'), 'released'],
  ];
  it.each(cases)('%s', async (_name, answer, expected) => {
    const { store, outcome } = recordingStore();
    expect(await idempotent(store, claim, async () => answer)).toBe(answer);
    expect(outcome).toEqual([expected]);
  });
});

describe('conflicts that clear by themselves are retryable', () => {
  it('409 in_progress: retryable, with Retry-After', async () => {
    const { store } = recordingStore({ kind: 'in_progress' });
    const refusal = await idempotent(store, claim, async () => {
      throw new Error('must not run');
    });
    expect(refusal.status).toBe(409);
    expect(refusal.headers['retry-after']).toBe('1');
    expect(refusal.body).toMatchObject({ error: { code: 'conflict', retryable: true, details: { reason: 'in_progress' } } });
  });

  it('409 schedule_busy: retryable, with Retry-After; other conflicts are not', () => {
    expect(scheduleBusy.status).toBe(409);
    expect(scheduleBusy.headers['retry-after']).toBe('1');
    expect(scheduleBusy.body).toMatchObject({ error: { code: 'conflict', retryable: true, details: { reason: 'schedule_busy' } } });
    expect(toCatalogueError(new ResourceError('state', 'paused', { reason: 'paused' })).extensions).toMatchObject({ code: 'conflict', retryable: false });
  });
});
