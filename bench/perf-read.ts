import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { getForumPost } from '../schema/catalogue/forum-posts.ts';
import { adminSql } from './admin-sql.ts';
import { startCpuWatch } from './cpu.ts';
import { load } from './load.ts';
import { buyCredits, workspaceOf } from './operator.ts';
import { spawnService, spawnUntil } from './processes.ts';

/**
 * `node bench/perf-read.ts <out-dir>`: Linux `perf record` (CPU samples, not wall time as V8's --cpu-prof counts here)
 * of the billed `GET /v1/forum/posts/{id}` on one hot workspace (BENCH_BILLING=off: unbilled) and of the bare one-hop
 * proxy, both loaded at once by their own wrk (BENCH_CONNECTIONS each) so both see the same machine, recorded over
 * the same BENCH_SECONDS after BENCH_WARMUP_SECONDS (default 20: V8 is still compiling for about ten seconds), under
 * `--perf-basic-prof --interpreted-frames-native-stack` so JavaScript frames have names. Writes
 * `<out-dir>/{service,proxy}.perf.data` and prints the CPU per call of each; `perf script -i <file> > <file>.txt`
 * and `node bench/perf-stages.ts <file>.txt=<µs per call> …` group the samples by stage. BENCH_ONLY=service|proxy
 * records one. DATABASE_URL: a PostgreSQL server (a fresh database, dropped afterwards); without it the embedded
 * default. Run it under `flock /tmp/bench.lock`.
 */
const outDir = process.argv[2];
if (!outDir) throw new Error('usage: node bench/perf-read.ts <out-dir>');
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const warmup = Number(process.env.BENCH_WARMUP_SECONDS ?? 20);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const billed = process.env.BENCH_BILLING !== 'off';
const serverUrl = process.env.DATABASE_URL || undefined;
const only = process.env.BENCH_ONLY; // 'service' | 'proxy'
const postId = (getForumPost.example as { id: string }).id;
const postPath = `/v1/forum/posts/${postId}`;
const UNLIMITED = JSON.stringify(Object.fromEntries(['free', 't1', 't2', 't3'].map((tier) => [tier, { rateLimitPerMinute: 1_000_000_000 }])));
const PERF_NODE_OPTIONS = '--perf-basic-prof --interpreted-frames-native-stack';

function perfRecord(pid: number, file: string, forSeconds: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('perf', ['record', '-F', '999', '-g', '-p', String(pid), '-o', file, '--', 'sleep', String(forSeconds)], { stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('error', reject);
    child.once('exit', () => resolve());
  });
}

interface Target {
  name: string;
  pid: number;
  url: string;
  headers: Record<string, string>;
}

/** Every target loaded at once (its own wrk), so each sees the same machine; perf records each over the same seconds. */
async function measure(targets: Target[]) {
  const run = (forSeconds: number) => Promise.all(targets.map((t) => load({ name: t.name, url: t.url, headers: t.headers }, { seconds: forSeconds, connections, threads: 1 })));
  await run(warmup);
  const recordings = targets.map((t) => perfRecord(t.pid, `${outDir}/${t.name}.perf.data`, seconds));
  const watches = targets.map((t) => startCpuWatch([t.pid]));
  const results = await run(seconds);
  const cpus = results.map((result, i) => watches[i]!(result.requests));
  await Promise.all(recordings);
  targets.forEach((t, i) => console.log(`${t.name}: ${results[i]!.requestsPerSecond.toFixed(0)} req/s, ${cpus[i]?.ownUsPerCall} µs/call, ${results[i]!.non2xx} non-2xx`));
}

const sim = await spawnUntil('adapters/sim/standalone.ts', { FORUM_SIM_PORT: '0', MICROBLOG_SIM_PORT: '0', SIM_FORUM_RATE_LIMIT: '1000000000' }, /FORUM_UPSTREAM_URL=(\S+)\s+MICROBLOG_UPSTREAM_URL=(\S+)/);
const upstream = { FORUM_UPSTREAM_URL: sim.match[1]!, MICROBLOG_UPSTREAM_URL: sim.match[2]! };
const stops: Array<() => Promise<void>> = [];
try {
  const targets: Target[] = [];
  if (only !== 'proxy') {
    let databaseUrl: string | undefined;
    if (serverUrl) {
      const database = `bench_${randomBytes(6).toString('hex')}`;
      await adminSql(serverUrl, `create database "${database}"`);
      stops.push(() => adminSql(serverUrl, `drop database if exists "${database}" with (force)`));
      const url = new URL(serverUrl);
      url.pathname = `/${database}`;
      databaseUrl = url.toString();
    }
    const service = await spawnService({ databaseUrl, env: { ...upstream, SVC_TIERS: UNLIMITED, NODE_OPTIONS: PERF_NODE_OPTIONS, ...(billed ? {} : { SVC_BILLING: 'off' }) } });
    stops.unshift(() => service.stop());
    if (billed) await buyCredits(service, await workspaceOf(service, service.key), 1_000_000_000);
    targets.push({ name: 'service', pid: service.pid, url: `${service.url}${postPath}`, headers: { authorization: `Bearer ${service.key}` } });
  }
  if (only !== 'service') {
    const proxy = await spawnUntil('bench/bare-proxy.ts', { ...upstream, POST_ID: postId, NODE_OPTIONS: PERF_NODE_OPTIONS }, /proxy URL:\s+(\S+)/);
    stops.unshift(() => proxy.stop());
    targets.push({ name: 'proxy', pid: proxy.child.pid!, url: proxy.match[1]!, headers: {} });
  }
  await measure(targets);
} finally {
  for (const stop of stops) await stop();
  await sim.stop();
}
