import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import type { CpuUse } from './cpu.ts';

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Σ `x-credits-charged` over the responses the load tool read (wrk only: autocannon does not expose headers). */
  creditsCharged?: number;
  /** Where the CPU went while this target was loaded (bench/cpu.ts). */
  cpu?: CpuUse;
  /** A target measured more than once (the floor): each sample's req/s; `requestsPerSecond` is their mean. */
  samples?: number[];
}

export interface LoadSpec {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  seconds: number;
  connections: number;
  /** wrk threads: 2, wrk's default, as issue 13 measured its goals (`wrk -c20`). */
  threads?: number;
  /** Requests per second in all, held steady (autocannon: wrk has no rate); absent, as fast as the target answers. */
  rate?: number;
}

/** wrk is a machine tool (`apt-get install -y wrk`); without it the bench says so and falls back to autocannon. */
export const loadTool: 'wrk' | 'autocannon' = (() => {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return 'wrk';
  } catch (error) {
    // wrk --version exits 1 after printing its version: only a missing binary is ENOENT.
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'autocannon' : 'wrk';
  }
})();

/** One bounded run over loopback; the benchmark never runs open-ended. */
export function load(spec: LoadSpec, options: LoadOptions): Promise<LoadResult> {
  return loadTool === 'wrk' && options.rate === undefined ? loadWithWrk(spec, options) : loadWithAutocannon(spec, options);
}

async function loadWithAutocannon(spec: LoadSpec, options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: spec.url,
    method: spec.method ?? 'GET',
    headers: spec.headers,
    body: spec.body,
    connections: options.connections,
    duration: options.seconds,
    overallRate: options.rate,
  });
  return {
    name: spec.name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

const luaString = (value: string) => `[==[${value}]==]`;

/** The wrk script: the request, a Σ of `x-credits-charged` per thread, and one JSON line of totals at the end. */
function wrkScript(spec: LoadSpec): string {
  const headers = Object.entries(spec.headers ?? {}).map(([name, value]) => `wrk.headers[ ${luaString(name)} ] = ${luaString(value)}`);
  return [
    `wrk.method = ${luaString(spec.method ?? 'GET')}`,
    ...(spec.body === undefined ? [] : [`wrk.body = ${luaString(spec.body)}`]),
    ...headers,
    'local threads = {}',
    'function setup(thread) table.insert(threads, thread) end',
    'function init(args) charged = 0 end',
    'function response(status, headers, body)',
    '  local value = headers["x-credits-charged"]',
    '  if value then charged = charged + tonumber(value) end',
    'end',
    'function done(summary, latency, requests)',
    '  local total = 0',
    '  for _, thread in ipairs(threads) do total = total + thread:get("charged") end',
    '  local e = summary.errors',
    '  io.write(string.format("BENCH_JSON {\\"requests\\":%d,\\"durationUs\\":%d,\\"p50Us\\":%d,\\"p99Us\\":%d,\\"charged\\":%d,\\"non2xx\\":%d,\\"errors\\":%d}\\n",',
    '    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), total, e.status, e.connect + e.read + e.write + e.timeout))',
    'end',
  ].join('\n');
}

async function loadWithWrk(spec: LoadSpec, options: LoadOptions): Promise<LoadResult> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-wrk-'));
  try {
    const script = join(dir, 'load.lua');
    await writeFile(script, wrkScript(spec));
    const args = ['-t', String(options.threads ?? 2), '-c', String(options.connections), '-d', `${options.seconds}s`, '--timeout', '10s', '-s', script, spec.url];
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (chunk) => (text += chunk));
      child.stderr.on('data', (chunk) => (text += chunk));
      child.once('error', reject);
      // 'close', not 'exit': 'exit' can come before the last of stdout is read, and the totals line is the last.
      child.once('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}:\n${text}`))));
    });
    const line = /BENCH_JSON (\{.*\})/.exec(output);
    if (!line) throw new Error(`wrk printed no totals:\n${output}`);
    const totals = JSON.parse(line[1]) as { requests: number; durationUs: number; p50Us: number; p99Us: number; charged: number; non2xx: number; errors: number };
    return {
      name: spec.name,
      requestsPerSecond: totals.requests / (totals.durationUs / 1e6),
      p50Ms: totals.p50Us / 1000,
      p99Ms: totals.p99Us / 1000,
      requests: totals.requests,
      non2xx: totals.non2xx,
      errors: totals.errors,
      creditsCharged: totals.charged,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
