import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../../adapters/logging/logger.ts';
import { createCorsPolicy } from '../../service/cors.ts';
import { createHttpServer, LISTENER_TIMEOUTS, type HttpRoutes } from '../../service/http-server.ts';

/**
 * The listener's bounds on a slow client, through a real socket. The bounds are the production ones scaled down
 * (headers 200 ms, request 400 ms, checked every 20 ms) so the test waits a fraction of a second, not a minute. No
 * route runs: the requests never finish arriving.
 */
const TIMEOUTS = { ...LISTENER_TIMEOUTS, headersTimeout: 200, requestTimeout: 400, connectionsCheckingInterval: 20 };
let server: Server;
let port: number;

beforeAll(async () => {
  server = createHttpServer({ now: () => new Date(), cors: createCorsPolicy(new Set()) } as unknown as HttpRoutes, TIMEOUTS);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));

/** Sends `head` (and nothing more), and reads what the server answers until it closes the connection. */
function trickle(head: string): Promise<{ answer: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve({ answer, closedAfterMs: performance.now() - started }));
  });
}

function parse(answer: string): { status: string; headers: string; body: Record<string, unknown> } {
  const [head, body] = answer.split('\r\n\r\n');
  return { status: head!.split('\r\n')[0]!, headers: head!.toLowerCase(), body: JSON.parse(body!) as Record<string, unknown> };
}

describe('listener timeouts', () => {
  it('answers headers that never finish with 408 in the error envelope, and closes', async () => {
    const { answer, closedAfterMs } = await trickle('GET /v1/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\nx-request-id: slow-headers-1\r\n');
    const { status, headers, body } = parse(answer);
    expect(status).toBe('HTTP/1.1 408 Request Timeout');
    expect(headers).toContain('connection: close');
    expect(headers).toContain('content-type: application/json');
    expect(headers).toContain('x-credits-charged: 0');
    expect(headers).not.toContain('access-control-allow-origin');
    expect(body).toMatchObject({ error: { code: 'request_timeout', retryable: true }, meta: { requestId: expect.stringMatching(/^req_/) } });
    expect(closedAfterMs).toBeLessThan(5_000);
  });

  it('answers a body that never finishes with 408 in the error envelope, keeping the request id', async () => {
    const errors = vi.spyOn(logger, 'error');
    const head = 'POST /v1/forum/lookup HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\nx-request-id: slow-body-0001\r\n\r\n{"posts":';
    const { status, body } = parse((await trickle(head)).answer);
    expect(status).toBe('HTTP/1.1 408 Request Timeout');
    expect(body).toMatchObject({ error: { code: 'request_timeout', retryable: true }, meta: { requestId: 'slow-body-0001' } });
    // The handler, still waiting for the body, sees the request end: a slow client, not a failure of the service.
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).not.toHaveBeenCalled();
    errors.mockRestore();
  });

  it('a 408 to a browser carries the CORS headers of its path, so the page can read it', async () => {
    const head = 'POST /v1/forum/lookup HTTP/1.1\r\nHost: 127.0.0.1\r\norigin: https://app.example\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"posts":';
    const { status, headers } = parse((await trickle(head)).answer);
    expect(status).toBe('HTTP/1.1 408 Request Timeout');
    expect(headers).toContain('access-control-allow-origin: *');
    expect(headers).toContain('access-control-expose-headers: x-credits-charged');
    expect(headers).toContain('x-credits-charged: 0');
  });

  it('answers a GraphQL body that never finishes in the GraphQL error shape', async () => {
    const head = 'POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"query":';
    const { status, body } = parse((await trickle(head)).answer);
    expect(status).toBe('HTTP/1.1 408 Request Timeout');
    expect(body).toMatchObject({ errors: [{ extensions: { code: 'request_timeout', retryable: true } }] });
  });

  it('keeps node’s bare answer for a request that is not HTTP', async () => {
    const { answer } = await trickle('NOT HTTP\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1.1 400 Bad Request\r\n/);
  });

  it('production bounds: headers 10 s, whole request 60 s, idle keep-alive 65 s, checked every second', () => {
    expect(LISTENER_TIMEOUTS).toEqual({ headersTimeout: 10_000, requestTimeout: 60_000, keepAliveTimeout: 65_000, connectionsCheckingInterval: 1_000 });
  });
});
