import type { IncomingMessage } from 'node:http';

/**
 * A request body up to `limit` bytes, or undefined when it is larger. A declared Content-Length over the limit is
 * refused before any byte is read (cheap), and a chunked body is cut off as soon as it passes the limit.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
