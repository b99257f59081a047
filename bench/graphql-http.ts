import { loadavg } from 'node:os';
import { Meter } from '../core/meter.ts';
import type { RequestContext } from '../core/request-context.ts';
import type { ServiceDeps } from '../core/service-deps.ts';
import { createJsonPostHandler } from '../schema/pipeline/graphql-json-post.ts';
import { createGraphQLServer } from '../schema/pipeline/graphql-server.ts';
import { operationPolicy } from '../schema/pipeline/use-operation-policy.ts';
import { operationByField } from '../schema/catalogue/index.ts';

/**
 * `npm run bench:graphql-http`: CPU time per `POST /graphql { health }` of the GraphQL layer alone, the common path
 * (createJsonPostHandler) against yoga's whole Fetch path (graphql.fetch with a Request, its Response read), in one
 * process, alternating, measured in the same run. No sockets: on a loaded machine this ratio holds where req/s
 * across processes do not. The listener's own work (HTTP parsing, the write) is the same for both and not in it.
 */
const CALLS = Number(process.env.BENCH_CALLS ?? 20_000);
const policy = operationPolicy(operationByField);
const graphql = createGraphQLServer({ graphiql: false, policy });
const common = createJsonPostHandler(graphql, policy);
const deps = { serviceName: 'conversation-data-service', version: 'bench' } as ServiceDeps;
const context = (): RequestContext => ({ requestId: 'req_bench', surface: 'graphql', authorization: undefined, meter: new Meter(), deps, responseHeaders: {}, memo: new Map(), now: () => new Date() });
const body = JSON.stringify({ query: '{ health { status service version timestamp } }' });
const headers = { host: '127.0.0.1', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };

const paths: Record<string, () => Promise<number>> = {
  common: async () => (await common({ body, headers }, context()))!.body.length,
  yoga: async () => (await (await graphql.fetch(new Request('http://127.0.0.1/graphql', { method: 'POST', headers, body }), context())).text()).length,
};

async function cpuMicroseconds(call: () => Promise<number>): Promise<number> {
  for (let i = 0; i < CALLS / 5; i++) await call();
  const started = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await call();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / CALLS;
}

const load = loadavg();
const rounds: Record<string, number[]> = { common: [], yoga: [] };
for (let round = 0; round < 3; round++) for (const [name, call] of Object.entries(paths)) rounds[name].push(await cpuMicroseconds(call));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const [ours, theirs] = [median(rounds.common), median(rounds.yoga)];
console.log(`CPU µs per call (median of 3 alternating rounds of ${CALLS}): common path ${ours.toFixed(1)}, yoga's Fetch path ${theirs.toFixed(1)}; ratio ${(ours / theirs).toFixed(2)}`);
console.log(`load average ${load.map((l) => l.toFixed(2)).join(' ')} → ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
