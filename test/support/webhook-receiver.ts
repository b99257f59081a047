import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** What the receiver answers at a path: a status (with headers, and a body of its own), or nothing at all (a hung endpoint). */
export type Behaviour = { status: number; headers?: Record<string, string>; body?: string | Buffer } | 'hang';

/** A loopback webhook receiver: records every request and answers each path as told (default 200). */
export async function startReceiver() {
  const received: Received[] = [];
  const behaviours = new Map<string, Behaviour>();
  const hung: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])), body: Buffer.concat(chunks).toString('utf8') });
      const behaviour = behaviours.get(path) ?? { status: 200 };
      if (behaviour === 'hang') {
        hung.push(res);
        return;
      }
      res.writeHead(behaviour.status, { 'content-type': 'text/plain', ...behaviour.headers });
      res.end(behaviour.body ?? `answered ${behaviour.status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    at: (path: string) => received.filter((request) => request.path === path),
    answer: (path: string, behaviour: Behaviour) => behaviours.set(path, behaviour),
    close: async () => {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
