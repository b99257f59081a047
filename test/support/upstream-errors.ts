import { expect } from 'vitest';
import { UpstreamError } from '../../adapters/upstream/upstream-error.ts';

/** The typed error a client call ended in; fails the test when it succeeded or threw anything else. */
export async function upstreamFailure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}
