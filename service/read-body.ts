import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {}

/**
 * Reads a request body up to `limit` bytes. A declared Content-Length over the limit is refused before any
 * byte is read (cheap), and a chunked body is cut off as soon as it passes the limit.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw new BodyTooLargeError();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLargeError();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
