import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyFault, FaultInjector, type FaultRule } from './faults.ts';

export type SimHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;

export interface SimServer {
  url: string;
  close(): Promise<void>;
}

/**
 * node:http on 127.0.0.1 for one simulated platform. Fault control (`/__sim/faults`) lives here; every
 * other `/__sim/…` route is the platform's content control and goes to its handler untouched by faults.
 */
export async function startSimServer(
  name: string,
  handler: SimHandler,
  opts: { port?: number; faults: FaultInjector },
): Promise<SimServer> {
  const server = createServer((req, res) => {
    void dispatch(name, handler, opts.faults, req, res);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function dispatch(name: string, handler: SimHandler, faults: FaultInjector, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  try {
    if (url.pathname === '/__sim/faults') {
      await handleFaultControl(faults, req, res);
      return;
    }
    if (!url.pathname.startsWith('/__sim/')) {
      const rule = faults.match(req.method ?? 'GET', url.pathname);
      if (rule && (await applyFault(rule, req, res)) === 'handled') return;
    }
    await handler(req, res, url);
  } catch (error) {
    if (!res.headersSent) sendJson(res, 500, { message: `${name} sim error: ${(error as Error).message}`, error: 500 });
    else res.destroy();
  }
}

async function handleFaultControl(faults: FaultInjector, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === 'DELETE') {
    faults.clear();
    sendJson(res, 200, { cleared: true });
    return;
  }
  if (req.method === 'POST') {
    const body = (await readJsonBody(req)) as { rule?: FaultRule } | undefined;
    if (!body?.rule || typeof body.rule.route !== 'string' || typeof body.rule.kind !== 'string') {
      sendJson(res, 400, { message: 'expected {rule: {route, kind, …}}' });
      return;
    }
    sendJson(res, 201, { id: faults.add(body.rule) });
    return;
  }
  sendJson(res, 405, { message: 'use POST or DELETE' });
}

export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(payload), ...headers });
  res.end(payload);
}
