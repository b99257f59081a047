import autocannon from 'autocannon';

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

export interface LoadSpec {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/** One bounded autocannon run over loopback; the benchmark never runs open-ended. */
export async function load(spec: LoadSpec, options: { seconds: number; connections: number }): Promise<LoadResult> {
  const result = await autocannon({
    url: spec.url,
    method: spec.method ?? 'GET',
    headers: spec.headers,
    body: spec.body,
    connections: options.connections,
    duration: options.seconds,
  });
  return {
    name: spec.name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export function printTable(results: LoadResult[], baseline: LoadResult): void {
  console.log('\n| target | req/s | p50 ms | p99 ms | non-2xx | errors | × baseline |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const ratio = baseline.requestsPerSecond > 0 ? r.requestsPerSecond / baseline.requestsPerSecond : 0;
    console.log(`| ${r.name} | ${r.requestsPerSecond.toFixed(0)} | ${r.p50Ms} | ${r.p99Ms} | ${r.non2xx} | ${r.errors} | ${ratio.toFixed(2)} |`);
  }
}
