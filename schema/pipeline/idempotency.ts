import { createHash } from 'node:crypto';
import type { IdempotencyStore, StoredResponse } from '../../adapters/db/idempotency-store.ts';
import { logger } from '../../adapters/logging/logger.ts';
import { errorEnvelope, type EnvelopeResponse, type ErrorBody } from '../operation-envelope.ts';

/** Printable ASCII, 1 to 255 characters: a UUID is the usual choice. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/** The request a key was first used for: method, path and the JSON body as the server read it. */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${JSON.stringify(body ?? null)}`).digest('base64url');
}

/**
 * Stripe's semantics for `Idempotency-Key`: the first request with a key runs; the same key with the same request
 * answers the first response again (marked `idempotent-replayed: true`) and does nothing twice, billing included; the
 * same key with a different request is 409, as is a retry while the first is still running. Only the answer of a
 * request that ran is kept (`keeps`); any other answer, or a crash, frees the key so the same request sent again runs.
 * A kept answer the store refuses leaves a marker in its place (`keep`). Keys are kept 24 h, per account.
 *
 * A success that carried a secret shown once (`oneTimeSecret`, a field of its `data`) is kept without it, and its
 * replay is 409 `secret_shown_once` naming the created id, also marked `idempotent-replayed: true`: the secret is
 * never stored in the clear nor shown twice.
 */
export async function idempotent(
  store: IdempotencyStore,
  claim: { scope: string; key: string; hash: string; requestId: string; oneTimeSecret?: string },
  run: () => Promise<EnvelopeResponse>,
): Promise<EnvelopeResponse> {
  const { scope, key, hash, requestId, oneTimeSecret } = claim;
  if (!KEY.test(key)) {
    return errorEnvelope(requestId, 'invalid_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters (a UUID, say).', { field: 'Idempotency-Key' });
  }
  const claimed = await store.claim(scope, key, hash);
  if (claimed.kind === 'mismatch') {
    return errorEnvelope(requestId, 'conflict', 'This Idempotency-Key was used for a different request: use a new key for a new request.', { field: 'Idempotency-Key', reason: 'key_reused' });
  }
  if (claimed.kind === 'in_progress') {
    const refusal = errorEnvelope(requestId, 'conflict', 'The first request with this Idempotency-Key is still being answered: retry shortly.', { field: 'Idempotency-Key', reason: 'in_progress' });
    return { ...refusal, headers: { 'retry-after': '1' } };
  }
  if (claimed.kind === 'replay') {
    const { status, headers, body } = claimed.response;
    if (oneTimeSecret && status < 400) {
      const id = (body as { data?: { id?: unknown } } | null)?.data?.id;
      const refusal = errorEnvelope(requestId, 'conflict', `The first request with this Idempotency-Key succeeded; its ${oneTimeSecret} was shown once, in that response, and is not kept. If it was lost, delete what was created and create it again.`, {
        field: 'Idempotency-Key',
        reason: 'secret_shown_once',
        id,
      });
      // A replay all the same: it does nothing, so the operator's audit must not record it as a new action.
      return { ...refusal, headers: { ...refusal.headers, 'idempotent-replayed': 'true' } };
    }
    return { status, headers: { ...headers, 'idempotent-replayed': 'true' }, body, isError: status >= 400 };
  }
  let response: EnvelopeResponse;
  try {
    response = await run();
  } catch (error) {
    await store.release(scope, key);
    throw error;
  }
  if (!keeps(response)) await store.release(scope, key);
  else await keep(store, { scope, key, requestId }, { status: response.status, headers: response.headers, body: withoutSecret(response, oneTimeSecret) });
  return response;
}

/**
 * Stripe's rule: an answer is kept only once the operation started executing. Kept: a success, and a 404 or 409 the
 * operation answered after it was admitted and looked at the account (no such monitor, a tier limit, a paused
 * monitor). Not kept: what refused the request before it ran, or withheld its result with nothing given or charged
 * (400 validation, 401, 402, 403, 429), and whatever says to send the request again (`retryable`: 429, 5xx, 409
 * `schedule_busy`). Every error of the service leaves nothing done, so sending such a request again is safe.
 */
function keeps(response: EnvelopeResponse): boolean {
  if (response.status < 400) return true;
  const retryable = (response.body as Partial<ErrorBody> | null)?.error?.retryable === true;
  return (response.status === 404 || response.status === 409) && !retryable;
}

/**
 * The work is done (and charged) whether or not its answer can be kept: failing to keep it must not turn that answer
 * into a 500 the client would retry and pay again. The answer is given, and the key stays held: by a marker answer
 * saying the first one was not kept (`notKept`), or, if even that cannot be stored, by the claim itself, which answers
 * `in_progress` until it counts as abandoned, as after a crash.
 */
async function keep(store: IdempotencyStore, claim: { scope: string; key: string; requestId: string }, response: StoredResponse): Promise<void> {
  const { scope, key, requestId } = claim;
  try {
    await store.complete(scope, key, response);
  } catch (error) {
    logger.error({ err: error, scope }, 'idempotency answer not kept; a marker answer holds the key');
    await store.complete(scope, key, notKept(requestId, response.status)).catch((markerError: unknown) => {
      logger.error({ err: markerError, scope }, 'idempotency marker not kept either; the claim holds the key until abandoned');
    });
  }
}

/**
 * What a replay answers when the first answer could not be kept: a 409 (not retryable) saying the request ran, with
 * the first answer's status; the client looks up what it did rather than sending it again under a new key. Only
 * ASCII and no header, so it is stored whatever refused the answer.
 */
function notKept(requestId: string, status: number): StoredResponse {
  const { body } = errorEnvelope(requestId, 'conflict', 'The first request with this Idempotency-Key ran, and was charged, but its answer could not be kept, so it cannot be given again. Look up what it did instead of sending it again under a new key.', {
    field: 'Idempotency-Key',
    reason: 'answer_not_kept',
    status,
  });
  return { status: 409, headers: {}, body };
}

function withoutSecret(response: EnvelopeResponse, field: string | undefined): unknown {
  const body = response.body as { data?: Record<string, unknown> } | null;
  if (!field || response.status >= 400 || !body?.data || !(field in body.data)) return response.body;
  const { [field]: _secret, ...data } = body.data;
  return { ...body, data };
}
