import { billedVersusUnbilled } from './billed-calls.ts';
import { load, printTable, type LoadResult } from './load.ts';
import { spawnService, spawnUntil } from './processes.ts';

/**
 * `npm run bench`: the service and a bare node:http baseline, each in its own process, driven over loopback in
 * the same run; prints throughput, p50/p99 and the ratio to the baseline. Bounded: BENCH_SECONDS per target.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);

// The bench measures the pipeline, not refusals: the demo workspace's tier gets a ceiling the load cannot reach.
const service = await spawnService({ SVC_TIERS: JSON.stringify({ free: { rateLimitPerMinute: 1_000_000_000 } }) });
const results: LoadResult[] = [];
try {
  const auth = { authorization: `Bearer ${service.key}` };
  const sample = await fetch(`${service.url}/v1/whoami`, { headers: auth });
  const bodyBytes = (await sample.text()).length;
  const bare = await spawnUntil('bench/bare-server.ts', { BODY_BYTES: String(bodyBytes) }, /bare URL:\s+(\S+)/);
  try {
    const baseline = await load({ name: `bare node:http (${bodyBytes} B JSON)`, url: bare.match[1] }, { seconds, connections });
    results.push(baseline);
    // No database on these two: they isolate the HTTP, pipeline and GraphQL overhead from the database's.
    results.push(await load({ name: 'REST GET /health (no database)', url: `${service.url}/health` }, { seconds, connections }));
    results.push(
      await load(
        { name: 'GraphQL health (no database)', url: `${service.url}/graphql`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ health { status service version timestamp } }' }) },
        { seconds, connections },
      ),
    );
    results.push(await load({ name: 'REST GET /v1/whoami', url: `${service.url}/v1/whoami`, headers: auth }, { seconds, connections }));
    results.push(
      await load(
        { name: 'GraphQL whoami', url: `${service.url}/graphql`, method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ whoami { keyId label scopes createdAt expiresAt workspaceId } }' }) },
        { seconds, connections },
      ),
    );
    const [billed, unbilled] = await billedVersusUnbilled({ seconds, connections });
    results.push(billed, unbilled);
    console.log(`\nNode ${process.version}, ${connections} connections, ${seconds}s per target, database: ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}`);
    printTable(results, baseline);
    console.log(`\nbilled / unbilled (same call, same run): ${(billed.requestsPerSecond / unbilled.requestsPerSecond).toFixed(2)}`);
  } finally {
    await bare.stop();
  }
} finally {
  await service.stop();
}
