import { describe, expect, it } from 'vitest';
import { requestHash } from '../../schema/pipeline/idempotency.ts';

/** What "the same request" is for an Idempotency-Key (docs/api-conventions.md "Idempotency-Key"). */
const hashOf = (text: string, method = 'POST', path = '/v1/monitors') => requestHash(method, path, JSON.parse(text));

describe('the request an Idempotency-Key was first used for', () => {
  it('is the JSON the server read: whitespace and number spelling do not matter', () => {
    expect(hashOf('{"query":"api","limit":3}')).toBe(hashOf('{ "query" : "api",\n  "limit": 3.0 }'));
  });

  it('keeps the members in the order sent: a body built again in another order is another request', () => {
    expect(hashOf('{"query":"api","limit":3}')).not.toBe(hashOf('{"limit":3,"query":"api"}'));
  });

  it('includes the method and the path', () => {
    expect(hashOf('{}')).not.toBe(hashOf('{}', 'PATCH'));
    expect(hashOf('{}')).not.toBe(hashOf('{}', 'POST', '/v1/webhooks'));
  });
});
