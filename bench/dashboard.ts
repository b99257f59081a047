import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hashPassword, verifyPassword } from '../adapters/people/password-hash.ts';
import { printTable } from './goals.ts';
import { load } from './load.ts';
import { spawnService } from './processes.ts';

/**
 * What the dashboard costs: a signed-in page (session lookup, membership, the page's reads, server rendering) against
 * `/health` on the same service in the same run, and the CPU time of one scrypt password check (every sign-in pays it).
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = 10;

const HASHES = 10;
const stored = await hashPassword('benchmark-password');
const started = performance.now();
for (let i = 0; i < HASHES; i++) await verifyPassword('benchmark-password', stored);
console.log(`scrypt (N=2^15, r=8, p=1) password check: ${((performance.now() - started) / HASHES).toFixed(1)} ms each`);

const service = await spawnService({ databaseUrl: process.env.DATABASE_URL });
try {
  const whoami = (await (await fetch(`${service.url}/v1/whoami`, { headers: { authorization: `Bearer ${service.key}` } })).json()) as { data: { workspaceId: string } };
  const password = /password: (\S+)/.exec(await readFile(join(service.dataDir, 'demo-person'), 'utf8'))?.[1] ?? '';
  const form = await fetch(`${service.url}/dashboard/sign-in`);
  const formCookie = form.headers.getSetCookie()[0].split(';')[0];
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const signedIn = await fetch(`${service.url}/dashboard/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: formCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, email: 'demo@example.com', password }).toString(),
  });
  const session = signedIn.headers.getSetCookie().find((line) => line.startsWith('svc_session='))?.split(';')[0];
  if (!session) throw new Error(`demo sign-in failed: ${signedIn.status}`);
  const headers = { cookie: session };
  const base = `${service.url}/dashboard/workspaces/${whoami.data.workspaceId}`;
  const baseline = await load({ name: 'GET /health (baseline)', url: `${service.url}/health` }, { seconds, connections });
  const results = [
    baseline,
    await load({ name: 'GET keys page (signed in)', url: `${base}/keys`, headers }, { seconds, connections }),
    await load({ name: 'GET usage page (signed in)', url: `${base}/usage`, headers }, { seconds, connections }),
  ];
  printTable('dashboard pages against /health', results, baseline, '/health');
} finally {
  await service.stop();
}
