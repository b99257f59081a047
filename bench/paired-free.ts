import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { rssMb, startCpuWatch } from './cpu.ts';
import { load, type LoadSpec } from './load.ts';
import { spawnService, spawnUntil, type BenchService } from './processes.ts';

/**
 * `npm run bench:paired-free`: a change's effect on a free call's service CPU per call, paired. A before checkout
 * (BENCH_BEFORE_ROOT) and this one run side by side, both loaded at the same time every round (wrk, one thread, 20
 * connections each), CPU per call read from /proc. BENCH_TARGET: `whoami` (REST, default), `graphql` (`{ health }`)
 * or `health` (REST). PostgreSQL when DATABASE_SERVER_URL is set (`postgres://…`, a fresh database per service),
 * else the embedded default. Run it under `flock /tmp/bench.lock`.
 *
 * The two services are started afresh for each of BENCH_PAIRS pairs, which of them starts first alternating: on
 * PGlite the service started second measured 11–14 % less CPU per call than the first whatever the code (an A/A pair
 * 0.79–0.89), an offset that stays with the process for all its rounds. So the start order alternates, and the
 * estimate is the geometric mean of the two orders' medians, in which the offset cancels (it is printed too).
 * BENCH_AFTER_NODE_FLAGS (space-separated) gives this checkout's service extra node flags: a runtime flag measured
 * paired (BENCH_BEFORE_ROOT may then be this checkout too). Each round prints both services' resident set.
 */
const beforeRoot = process.env.BENCH_BEFORE_ROOT;
if (!beforeRoot) throw new Error('BENCH_BEFORE_ROOT: the checkout to compare with (a git worktree of the commit before the change).');
const target = process.env.BENCH_TARGET ?? 'whoami';
const pairs = Number(process.env.BENCH_PAIRS ?? 4);
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const serverUrl = process.env.DATABASE_SERVER_URL;
const afterNodeFlags = process.env.BENCH_AFTER_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? [];
const UNLIMITED = JSON.stringify(Object.fromEntries(['free', 't1', 't2', 't3'].map((tier) => [tier, { rateLimitPerMinute: 1_000_000_000 }])));

function admin(sql: string): void {
  const url = new URL(serverUrl!);
  url.pathname = '/postgres';
  execFileSync('psql', [url.toString(), '-qc', sql]);
}

const dropDatabase = (name: string) => admin(`drop database if exists "${name}" with (force)`);

function freshDatabase(name: string): string | undefined {
  if (!serverUrl) return undefined;
  dropDatabase(name);
  admin(`create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function specOf(service: BenchService): LoadSpec {
  if (target === 'whoami') return { name: target, url: `${service.url}/v1/whoami`, headers: { authorization: `Bearer ${service.key}` } };
  if (target === 'health') return { name: target, url: `${service.url}/health` };
  return { name: target, url: `${service.url}/graphql`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ health { status service version timestamp } }' }) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const loadBoth = (services: BenchService[], measured: number) => Promise.all(services.map((service) => load(specOf(service), { seconds: measured, connections: 20, threads: 1 })));

const sim = await spawnUntil('adapters/sim/standalone.ts', { FORUM_SIM_PORT: '0', MICROBLOG_SIM_PORT: '0' }, /FORUM_UPSTREAM_URL=(\S+)\s+MICROBLOG_UPSTREAM_URL=(\S+)/);
const env = { FORUM_UPSTREAM_URL: sim.match[1]!, MICROBLOG_UPSTREAM_URL: sim.match[2]!, SVC_TIERS: UNLIMITED };
const byOrder: Record<'before first' | 'after first', number[]> = { 'before first': [], 'after first': [] };
console.log(`${target}${afterNodeFlags.length ? ` (after: node ${afterNodeFlags.join(' ')})` : ''} on ${serverUrl ? 'PostgreSQL' : 'embedded PGlite'}; before: ${beforeRoot}, after: this checkout; ${pairs} pairs × ${rounds} rounds of ${seconds} s`);
try {
  // Both orders equally often: the offset cancels only then.
  for (let pair = 0; pair < 2 * Math.ceil(pairs / 2); pair++) {
    const order = pair % 2 === 0 ? 'before first' : 'after first';
    const started: BenchService[] = [];
    try {
      for (const side of order === 'before first' ? ['before', 'after'] : ['after', 'before']) {
        started.push(await spawnService({ root: side === 'before' ? beforeRoot : undefined, databaseUrl: freshDatabase(`bench_paired_free_${side}`), env, nodeFlags: side === 'before' ? [] : afterNodeFlags }));
      }
      const [before, after] = order === 'before first' ? started : [started[1]!, started[0]!];
      await loadBoth([before!, after!], 4);
      for (let round = 1; round <= rounds; round++) {
        const watches = [before!, after!].map((service) => startCpuWatch([service.pid]));
        const [b, a] = await loadBoth([before!, after!], seconds);
        const [cb, ca] = [watches[0]!(b!.requests)?.ownUsPerCall ?? Number.NaN, watches[1]!(a!.requests)?.ownUsPerCall ?? Number.NaN];
        byOrder[order].push(ca / cb);
        const refused = b!.non2xx + a!.non2xx ? `, non-2xx ${b!.non2xx}/${a!.non2xx}` : '';
        console.log(`pair ${pair + 1} (${order}) round ${round}: before ${b!.requestsPerSecond.toFixed(0)} req/s ${cb} µs ${rssMb(before!.pid) ?? '?'} MB | after ${a!.requestsPerSecond.toFixed(0)} req/s ${ca} µs ${rssMb(after!.pid) ?? '?'} MB | after ÷ before ${(ca / cb).toFixed(3)}${refused}, load ${loadavg()[0]!.toFixed(1)}`);
      }
    } finally {
      for (const service of started) await service.stop();
      if (serverUrl) for (const side of ['before', 'after']) dropDatabase(`bench_paired_free_${side}`);
    }
  }
  const [second, first] = [median(byOrder['before first']), median(byOrder['after first'])];
  console.log(`after ÷ before CPU per call: ${Math.sqrt(second * first).toFixed(3)} (medians: after started second ${second.toFixed(3)}, first ${first.toFixed(3)})`);
  console.log(`the second-started service's offset: ${Math.sqrt(second / first).toFixed(3)}`);
} finally {
  await sim.stop();
}
