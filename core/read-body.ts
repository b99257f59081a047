import type { IncomingMessage } from 'node:http';

/**
 * A request body up to `limit` bytes, or undefined when it is larger. A declared Content-Length over the limit is
 * refused before any byte is read (cheap), and a chunked body is cut off as soon as it passes the limit.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const declared = req.headers['content-length'];
  if (declared !== undefined) return Number(declared) > limit ? undefined : readDeclared(req);
  // Neither a length nor chunked: the request has no body (RFC 9112 §6.3), and iterating the stream costs more than
  // the rest of a small GET.
  if (req.headers['transfer-encoding'] === undefined) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A body of declared length, which the HTTP parser keeps to that length: read with plain listeners, since an async
 * iterator over the request (its end-of-stream tracking and teardown) cost more than the rest of reading a small body.
 */
function readDeclared(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
    // A client gone before the end. Every request closes once answered: no error (and its stack) is made then.
    req.once('close', () => {
      if (!req.complete) reject(new Error('The request closed before its body was read.'));
    });
  });
}
