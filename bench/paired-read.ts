import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { getForumPost } from '../schema/catalogue/forum-posts.ts';
import { adminSql } from './admin-sql.ts';
import { rssMb, startCpuWatch, type CpuUse } from './cpu.ts';
import { load, type LoadResult } from './load.ts';
import { buyCredits, workspaceOf } from './operator.ts';
import { spawnService, spawnUntil, type BenchService, type Spawned } from './processes.ts';

/**
 * `node bench/paired-read.ts`: a change's effect on the billed `GET /v1/forum/posts/{id}` (BENCH_BILLING=off: the
 * unbilled one), measured paired: a "before" service (the checkout at BENCH_BEFORE_ROOT) and this checkout's, each
 * with its own checkout's simulated platforms and its own database, loaded at the same time in every round, so the machine's
 * drift between minutes falls on both alike. Per round: each service's CPU per call from /proc, its platform's, and
 * after ÷ before. DATABASE_URL names a PostgreSQL server (a fresh database per service, dropped afterwards); without
 * it both run on the embedded default. BENCH_ROUNDS (default 8), BENCH_SECONDS per round (default 3),
 * BENCH_CONNECTIONS per service (default 10). BENCH_PATH another GET of the catalogue (e.g. a post's comments). Run it
 * under `flock /tmp/bench.lock` like `npm run bench`.
 *
 * BENCH_PAIRS (default 2) pairs of services are started afresh, which side starts first alternating: on PGlite the
 * process started second uses 11–21 % less CPU per call whatever its code (bench/paired-free.ts), an offset that
 * stays with it for all its rounds. The estimate is the geometric mean of the two orders' medians, in which the
 * offset cancels. BENCH_AFTER_FIRST=1 starts this checkout's service first in the first pair (with BENCH_PAIRS=1:
 * one order only). BENCH_BEFORE_BILLING=off runs the before side unbilled: what billing adds, measured paired.
 * BENCH_AFTER_NODE_FLAGS (space-separated) gives this checkout's service extra node flags: a runtime flag measured
 * paired (BENCH_BEFORE_ROOT may then be this checkout too). Each round prints both services' resident set.
 * BENCH_TRACE_GC=1 runs both services with `--trace-gc` and prints, per round, each one's collections per 1,000 calls
 * and its main thread's GC pauses in µs per call (the pauses are wall time: a preempted pause counts in full).
 */
const beforeRoot = process.env.BENCH_BEFORE_ROOT;
if (!beforeRoot) throw new Error('BENCH_BEFORE_ROOT: the checkout to compare against (e.g. a git worktree of main)');
const rounds = Number(process.env.BENCH_ROUNDS ?? 8);
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const billed = process.env.BENCH_BILLING !== 'off';
const beforeBilled = (process.env.BENCH_BEFORE_BILLING ?? process.env.BENCH_BILLING) !== 'off';
const pairs = Number(process.env.BENCH_PAIRS ?? 2);
const afterFirst = process.env.BENCH_AFTER_FIRST === '1';
const afterNodeFlags = process.env.BENCH_AFTER_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? [];
const traceGc = process.env.BENCH_TRACE_GC === '1' ? ['--trace-gc'] : [];
const serverUrl = process.env.DATABASE_URL || undefined;
const postPath = process.env.BENCH_PATH ?? `/v1/forum/posts/${(getForumPost.example as { id: string }).id}`;
const UNLIMITED = JSON.stringify(Object.fromEntries(['free', 't1', 't2', 't3'].map((tier) => [tier, { rateLimitPerMinute: 1_000_000_000 }])));

interface Side {
  name: 'before' | 'after';
  sim: Spawned;
  service: BenchService;
  database?: string;
  /** How much of the service's output the GC count has read. */
  gcRead: number;
}

/** The `--trace-gc` lines the service printed since the last call: young and full collections, pause ms. */
function gcSince(side: Side): { young: number; full: number; pauseMs: number } {
  const output = side.service.output();
  const text = output.slice(side.gcRead);
  side.gcRead = output.length;
  const gc = { young: 0, full: 0, pauseMs: 0 };
  for (const [, kind, ms] of text.matchAll(/ms: (Scavenge|Minor Mark-Sweep|Mark-Compact)\b[^\n]*?, ([\d.]+) \/ [\d.]+ ms/g)) {
    if (kind === 'Mark-Compact') gc.full++;
    else gc.young++;
    gc.pauseMs += Number(ms);
  }
  return gc;
}

const admin = (sql: string) => adminSql(serverUrl!, sql);

async function start(name: Side['name'], root: string | undefined, isBilled: boolean, nodeFlags: readonly string[] = []): Promise<Side> {
  const sim = await spawnUntil('adapters/sim/standalone.ts', { FORUM_SIM_PORT: '0', MICROBLOG_SIM_PORT: '0', SIM_FORUM_RATE_LIMIT: '1000000000' }, /FORUM_UPSTREAM_URL=(\S+)\s+MICROBLOG_UPSTREAM_URL=(\S+)/, { cwd: root });
  let database: string | undefined;
  let databaseUrl: string | undefined;
  if (serverUrl) {
    database = `bench_${randomBytes(6).toString('hex')}`;
    await admin(`create database "${database}"`);
    const url = new URL(serverUrl);
    url.pathname = `/${database}`;
    databaseUrl = url.toString();
  }
  const env = { FORUM_UPSTREAM_URL: sim.match[1]!, MICROBLOG_UPSTREAM_URL: sim.match[2]!, SVC_TIERS: UNLIMITED, ...(isBilled ? {} : { SVC_BILLING: 'off' }) };
  const service = await spawnService({ root, databaseUrl, env, nodeFlags: [...nodeFlags, ...traceGc] });
  if (isBilled) await buyCredits(service, await workspaceOf(service, service.key), 1_000_000_000);
  const probe = await fetch(`${service.url}${postPath}`, { headers: { authorization: `Bearer ${service.key}` } });
  const text = await probe.text();
  if (probe.status !== 200) throw new Error(`${name}: ${postPath} answered ${probe.status}: ${text}`);
  return { name, sim, service, database, gcRead: 0 };
}

async function stop(side: Side | undefined): Promise<void> {
  if (!side) return;
  await side.service.stop();
  await side.sim.stop();
  if (side.database) await admin(`drop database if exists "${side.database}" with (force)`);
}

/** Both sides loaded at once; each side's CPU read over its own load. */
async function round(sides: Side[], measuredSeconds: number): Promise<Array<{ result: LoadResult; cpu?: CpuUse }>> {
  return Promise.all(
    sides.map(async (side) => {
      const watch = startCpuWatch([side.service.pid], side.sim.child.pid!);
      const spec = { name: side.name, url: `${side.service.url}${postPath}`, headers: { authorization: `Bearer ${side.service.key}` } };
      const result = await load(spec, { seconds: measuredSeconds, connections, threads: 1 });
      return { result, cpu: watch(result.requests) };
    }),
  );
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const range = (values: number[]) => `median ${median(values).toFixed(3)} (${Math.min(...values).toFixed(3)}–${Math.max(...values).toFixed(3)})`;
const kind = (isBilled: boolean) => (isBilled ? 'billed' : 'unbilled');
console.log(`before ${kind(beforeBilled)}, after ${kind(billed)}${afterNodeFlags.length ? ` (node ${afterNodeFlags.join(' ')})` : ''} ${postPath} on ${serverUrl ? 'PostgreSQL' : 'embedded PGlite'}; before: ${beforeRoot}, after: this checkout; ${pairs} pairs × ${rounds} rounds of ${seconds} s, ${connections} connections each`);
const byOrder: Record<'before first' | 'after first', number[]> = { 'before first': [], 'after first': [] };
const rates: number[] = [];
const simRatios: number[] = [];
for (let pair = 0; pair < pairs; pair++) {
  const order = (pair + (afterFirst ? 1 : 0)) % 2 === 0 ? 'before first' : 'after first';
  let before: Side | undefined;
  let after: Side | undefined;
  try {
    if (order === 'before first') {
      before = await start('before', beforeRoot, beforeBilled);
      after = await start('after', undefined, billed, afterNodeFlags);
    } else {
      after = await start('after', undefined, billed, afterNodeFlags);
      before = await start('before', beforeRoot, beforeBilled);
    }
    const sides = [before, after];
    await round(sides, 3);
    for (const side of sides) gcSince(side);
    for (let i = 1; i <= rounds; i++) {
      const [b, a] = await round(sides, seconds);
      const fmt = (side: { result: LoadResult; cpu?: CpuUse }, of: Side) => {
        const gc = traceGc.length ? gcSince(of) : undefined;
        const perThousand = (count: number) => ((count * 1000) / side.result.requests).toFixed(2);
        const gcText = gc ? `, GC ${perThousand(gc.young)} young + ${perThousand(gc.full)} full per 1,000 calls, ${((gc.pauseMs * 1000) / side.result.requests).toFixed(1)} µs/call paused` : '';
        return `${side.result.requestsPerSecond.toFixed(0)} req/s, ${side.cpu?.ownUsPerCall ?? '?'} µs/call (platform ${side.cpu?.upstreamUsPerCall ?? '?'})${side.result.non2xx + side.result.errors ? `, ${side.result.non2xx} non-2xx, ${side.result.errors} errors` : ''}, RSS ${rssMb(of.service.pid) ?? '?'} MB${gcText}`;
      };
      const ratio = (a!.cpu?.ownUsPerCall ?? Number.NaN) / (b!.cpu?.ownUsPerCall ?? Number.NaN);
      byOrder[order].push(ratio);
      simRatios.push((a!.cpu?.upstreamUsPerCall ?? Number.NaN) / (b!.cpu?.upstreamUsPerCall ?? Number.NaN));
      rates.push(a!.result.requestsPerSecond / b!.result.requestsPerSecond);
      console.log(`pair ${pair + 1} (${order}) round ${i}: before ${fmt(b!, before)} | after ${fmt(a!, after)} | after ÷ before CPU/call ${ratio.toFixed(3)}, load ${loadavg()[0]!.toFixed(1)}`);
    }
  } finally {
    await stop(after);
    await stop(before);
  }
}
const orders = (['before first', 'after first'] as const).filter((order) => byOrder[order].length > 0);
for (const order of orders) console.log(`after ÷ before, service CPU per call, ${order}: ${range(byOrder[order])}`);
const estimate = Math.exp(orders.reduce((sum, order) => sum + Math.log(median(byOrder[order])), 0) / orders.length);
console.log(`after ÷ before, service CPU per call: ${estimate.toFixed(3)}${orders.length > 1 ? ' (geometric mean of the two orders\' medians)' : ' (one order only: on PGlite this carries the start-order offset)'}; req/s: ${range(rates)}; platform CPU per call: ${range(simRatios)}; load average ${loadavg()[0]!.toFixed(2)}`);
