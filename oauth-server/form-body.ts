import type { IncomingMessage } from 'node:http';

/** oidc-provider's own limit on a form body; a longer one is refused as it would refuse it. */
const BODY_LIMIT = 56 * 1024;

/**
 * The whole body, or undefined when it is longer than `limit`. A check in front of oidc-provider that reads the body
 * hands it on as `req.body`, where oidc-provider takes it from (and notes that once in its log).
 */
export async function readFormBody(req: IncomingMessage, limit = BODY_LIMIT): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, received);
}
