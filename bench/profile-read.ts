import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { getForumPost } from '../schema/catalogue/forum-posts.ts';
import { startCpuWatch } from './cpu.ts';
import { allocationSites, printAllocationSites, type SamplingHeapProfileNode } from './heap-sites.ts';
import { load } from './load.ts';
import { buyCredits, workspaceOf } from './operator.ts';
import { spawnService, spawnUntil, type BenchService } from './processes.ts';

/**
 * `node bench/profile-read.ts`: what one billed (BENCH_BILLING=off: unbilled) `GET /v1/forum/posts/{id}` on one hot
 * workspace costs, over the measured seconds only — the service's CPU per call, and with DATABASE_URL (a scratch
 * database: the service migrates it) the transactions and rows PostgreSQL saw per call. BENCH_PROFILE=<dir> writes
 * a V8 CPU profile of the service over the same seconds (the inspector, started after the warm-up, so start-up and
 * migrations stay out of it). On the embedded default (no DATABASE_URL) it also prints, per SQL statement PGlite ran
 * in those seconds, how many ran and the service thread's CPU inside PGlite per call and per statement
 * (bench/pglite-statements.ts). BENCH_ALLOC=1 samples the service's heap over the measured seconds (the inspector's
 * sampling heap profiler, every ~BENCH_ALLOC_INTERVAL bytes, default 4096, objects later collected included) and
 * prints the bytes allocated per call by package, by allocating function and by the innermost frame of this project's
 * code (bench/heap-sites.ts); BENCH_ALLOC_OUT=<dir> also writes the profile there (.heapprofile, the calls in its name).
 * What the service allocates off the call's path (lease syncs, usage flushes, polling) is paid per second, so two
 * checkouts' bytes per call compare only at one rate: BENCH_RATE=<req/s> holds the measured load at that rate
 * (autocannon). Run it under `flock /tmp/bench.lock` like `npm run bench`.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const billed = process.env.BENCH_BILLING !== 'off';
const profileDir = process.env.BENCH_PROFILE;
const allocSampling = process.env.BENCH_ALLOC === '1';
const allocOut = process.env.BENCH_ALLOC_OUT;
const allocInterval = Number(process.env.BENCH_ALLOC_INTERVAL ?? 4096);
const rate = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined;
const databaseUrl = process.env.DATABASE_URL || undefined;
const postPath = `/v1/forum/posts/${(getForumPost.example as { id: string }).id}`;
const UNLIMITED = JSON.stringify(Object.fromEntries(['free', 't1', 't2', 't3'].map((tier) => [tier, { rateLimitPerMinute: 1_000_000_000 }])));

async function databaseCounters(): Promise<Record<string, number> | undefined> {
  if (!databaseUrl) return undefined;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('select xact_commit, tup_inserted, tup_updated, tup_deleted from pg_stat_database where datname = current_database()');
    return Object.fromEntries(Object.entries(rows[0] as Record<string, string>).map(([name, value]) => [name, Number(value)]));
  } finally {
    await client.end();
  }
}

/** A minimal Chrome DevTools Protocol session on the service's inspector. */
async function inspect(service: BenchService) {
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(service.output())?.[1];
  if (!url) throw new Error(`the service printed no inspector URL:\n${service.output()}`);
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', reject, { once: true });
  });
  let next = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  });
  const send = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve) => {
      const id = ++next;
      waiting.set(id, resolve as (result: unknown) => void);
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => socket.close() };
}

const sim = await spawnUntil('adapters/sim/standalone.ts', { FORUM_SIM_PORT: '0', MICROBLOG_SIM_PORT: '0', SIM_FORUM_RATE_LIMIT: '1000000000' }, /FORUM_UPSTREAM_URL=(\S+)\s+MICROBLOG_UPSTREAM_URL=(\S+)/);
const statementsOut = databaseUrl ? undefined : join(tmpdir(), `pglite-statements-${process.pid}.json`);
const preload = fileURLToPath(new URL('./pglite-statements.ts', import.meta.url));
const nodeOptions = [profileDir || allocSampling ? '--inspect=127.0.0.1:0' : '', statementsOut ? `--import ${preload}` : ''].filter(Boolean).join(' ');
const env = {
  FORUM_UPSTREAM_URL: sim.match[1]!,
  MICROBLOG_UPSTREAM_URL: sim.match[2]!,
  SVC_TIERS: UNLIMITED,
  ...(billed ? {} : { SVC_BILLING: 'off' }),
  ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
  ...(statementsOut ? { PGLITE_STATEMENTS_OUT: statementsOut } : {}),
};

const service = await spawnService({ databaseUrl, env });

/** What PGlite ran since the last call (bench/pglite-statements.ts); each call starts the count again. */
async function pgliteStatements(): Promise<{ threadCpuUs: number; rows: Array<{ sql: string; statements: number; exchanges: number; cpuUs: number }> } | undefined> {
  if (!statementsOut) return undefined;
  process.kill(service.pid, 'SIGUSR2');
  for (let waited = 0; waited < 2_000; waited += 50) {
    await sleep(50);
    const text = await readFile(statementsOut, 'utf8').catch(() => '');
    if (text) {
      await rm(statementsOut);
      return JSON.parse(text);
    }
  }
  throw new Error('the service wrote no PGlite statement counts');
}
try {
  const headers = { authorization: `Bearer ${service.key}` };
  if (billed) await buyCredits(service, await workspaceOf(service, service.key), 1_000_000_000);
  const spec = { name: postPath, url: `${service.url}${postPath}`, headers };
  const probe = await fetch(spec.url, { headers });
  if (probe.status !== 200) throw new Error(`${postPath} answered ${probe.status}: ${await probe.text()}`);
  await load(spec, { seconds: 3, connections: 20 });

  const session = profileDir || allocSampling ? await inspect(service) : undefined;
  if (profileDir) {
    await session?.send('Profiler.enable');
    await session?.send('Profiler.start');
  }
  if (allocSampling) {
    await session?.send('HeapProfiler.enable');
    await session?.send('HeapProfiler.startSampling', { samplingInterval: allocInterval, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  }
  await pgliteStatements();
  const [countersBefore, loadBefore] = [await databaseCounters(), loadavg()[0]!];
  const watch = startCpuWatch([service.pid]);
  const result = await load(spec, { seconds, connections: 20, rate });
  const cpu = watch(result.requests);
  const [countersAfter, loadAfter] = [await databaseCounters(), loadavg()[0]!];
  const statements = await pgliteStatements();
  const profile = profileDir ? await session?.send<{ profile: unknown }>('Profiler.stop') : undefined;
  const heap = allocSampling ? await session?.send<{ profile: { head: SamplingHeapProfileNode } }>('HeapProfiler.stopSampling') : undefined;
  session?.close();

  const perCall = (value: number) => Number((value / result.requests).toFixed(3));
  console.log(`${billed ? 'billed' : 'unbilled'} ${postPath} on ${databaseUrl ? 'PostgreSQL' : 'embedded PGlite'}: ${result.requestsPerSecond.toFixed(0)} req/s, load average ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}`);
  console.log(`service CPU per call: ${cpu ? (cpu.ownUsPerCall / 1000).toFixed(3) : 'not measured (no /proc)'} ms`);
  if (countersBefore && countersAfter) {
    console.log('PostgreSQL per call:', Object.fromEntries(Object.keys(countersAfter).map((name) => [name, perCall(countersAfter[name]! - countersBefore[name]!)])));
  }
  if (statements) {
    const inPglite = statements.rows.reduce((sum, row) => sum + row.cpuUs, 0);
    console.log(`embedded database worker thread CPU per call ${(statements.threadCpuUs / result.requests).toFixed(1)} µs, of it inside PGlite ${(inPglite / result.requests).toFixed(1)} µs:`);
    for (const row of statements.rows) {
      const perStatement = row.statements ? (row.cpuUs / row.statements).toFixed(0) : '-';
      console.log(`  ${(row.cpuUs / result.requests).toFixed(1).padStart(6)} µs/call  ${(row.statements / seconds).toFixed(1).padStart(6)}/s  ${perStatement.padStart(6)} µs/statement  ${row.sql}`);
    }
  }
  if (profileDir && profile) {
    await mkdir(profileDir, { recursive: true });
    const file = `${profileDir}/read-${billed ? 'billed' : 'unbilled'}-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`;
    await writeFile(file, JSON.stringify(profile.profile));
    console.log(`profile: ${file} (open in Chrome DevTools or any .cpuprofile viewer)`);
  }
  if (heap) {
    printAllocationSites(allocationSites(heap.profile.head, result.requests));
    if (allocOut) {
      await mkdir(allocOut, { recursive: true });
      const file = `${allocOut}/read-${billed ? 'billed' : 'unbilled'}-${result.requests}-calls-${new Date().toISOString().replace(/[:.]/g, '-')}.heapprofile`;
      await writeFile(file, JSON.stringify(heap.profile));
      console.log(`heap profile: ${file}`);
    }
  }
} finally {
  await service.stop();
  await sim.stop();
}
