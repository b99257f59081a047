import { readFileSync } from 'node:fs';

/**
 * `perf script -i service.perf.data > service.txt; node bench/perf-stages.ts service.txt=<µs per call> proxy.txt=<µs>`:
 * the CPU samples of `bench/perf-read.ts` grouped by stage of the read, as a table of share and µs per call (the
 * share times the CPU per call that run measured). A sample belongs to the first rule below that matches:
 * garbage collection, JSON.parse and JSON.stringify wherever they are called from; then the innermost frame of
 * the stack that names a stage (so a `write` system call belongs to whoever wrote: the response or the upstream
 * request); then, for samples with no such frame, node's own scheduling, sockets and event loop.
 */
const ANYWHERE: Array<[string, RegExp]> = [
  ['GC (main thread)', /v8::internal::(Heap::|Scavenger|MarkCompact|MinorMarkSweep|GCTracer|ConcurrentMarking|IncrementalMarking|MarkingVisitor|Sweeper)|Builtins_.*WriteBarrier|RecordWrite/],
  ['JSON.parse (upstream answer)', /JsonParser|Builtins_JsonParse/],
  ['JSON.stringify (response body)', /JsonStringif|Builtins_JsonStringify/],
];
const INNERMOST: Array<[string, RegExp]> = [
  ['ledger and lease statements (pg, kysely)', /node_modules\/(pg|pg-protocol|kysely)\/|adapters\/db\/|@mikro-orm|usage-charge-writer/],
  ['upstream hop (undici, http-client)', /node_modules\/undici|adapters\/upstream\/http-client/],
  ['billing: lease admit/settle, usage row', /adapters\/billing\/credit-leases|adapters\/usage\/|billing-gate|known-balances|credit-headers/],
  ['forum loaders, client, DataLoader', /forum-loaders|dataloader|forum-client|once-per-request|upstream-answers|resolvers\/forum|core\/provenance/],
  ['mapping (forum-post-mapper)', /forum-post-mapper/],
  ['pipeline: auth, rate limit, worst case, policy', /use-operation-policy|authenticate|rate-gate|rate-limiter|identity|key-cache|key-material|worst-case|root-fields|crypto\/hash|crypto\/random|schema\/pipeline\//],
  ['REST bridge and envelope', /rest-bridge\/|operation-envelope|operation-fields/],
  // graphql-jit's compiled functions have no file: ` :line:col`.
  ['GraphQL execution (envelop, graphql-jit, pothos, zod)', /@envelop|graphql-jit|node_modules\/graphql\/|@pothos|node_modules\/zod|promise-helpers|execute-operation|graphql-yoga|GraphQLErro| :\d+:\d+\+0x/],
  ['response head and write (http-server, _http_outgoing)', /service\/http-server|_http_outgoing|bench\/bare-proxy/],
  ['node http server (parser, incoming)', /_http_server|_http_common|_http_incoming|node::.*Parser|llhttp/],
];
const FALLBACK: Array<[string, RegExp]> = [
  ['microtasks, ticks, timers', /task_queues|internal\/timers|node:timers|RunMicrotasks|PromiseFulfillReactionJob|async_hooks/],
  ['socket reads and writes (no caller named)', /stream_base_commons|node:net|internal\/streams|LibuvStreamWrap|uv__read|uv__write|__libc_write|__libc_read/],
  ['event loop (epoll)', /epoll|uv__io_poll|uv_run/],
];

function stageOf(thread: string, frames: string[]): string {
  if (thread !== 'MainThread') return 'other threads (V8: concurrent GC, compiler)';
  for (const rules of [ANYWHERE]) for (const [name, rule] of rules) if (frames.some((frame) => rule.test(frame))) return name;
  for (const rules of [INNERMOST, FALLBACK]) {
    for (const frame of frames) for (const [name, rule] of rules) if (rule.test(frame)) return name;
  }
  return 'other (malloc, libc)';
}

/** Samples of `perf script` output: a header line (thread name first), then one frame per line, leaf first. */
function* samples(text: string): Generator<{ thread: string; frames: string[] }> {
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n').filter((line) => line.trim());
    if (!lines.length) continue;
    yield { thread: lines[0]!.trim().split(/\s+/)[0]!, frames: lines.slice(1).map((line) => line.trim().replace(/^[0-9a-f]+ /, '')) };
  }
}

const inputs = process.argv.slice(2).map((arg) => {
  const [file, us] = arg.split('=');
  const counts = new Map<string, number>();
  let total = 0;
  for (const { thread, frames } of samples(readFileSync(file!, 'utf8'))) {
    const stage = stageOf(thread, frames);
    counts.set(stage, (counts.get(stage) ?? 0) + 1);
    total++;
  }
  return { file: file!, usPerCall: Number(us), counts, total };
});
if (!inputs.length) throw new Error('usage: node bench/perf-stages.ts <perf script output>=<CPU µs per call> …');
const stages = [...new Set(inputs.flatMap(({ counts }) => [...counts].sort((a, b) => b[1] - a[1]).map(([stage]) => stage)))];
console.log(`| stage | ${inputs.map(({ file }) => `${file} % | µs/call`).join(' | ')} |`);
console.log(`|---|${inputs.map(() => '---:|---:').join('|')}|`);
for (const stage of stages) {
  const cells = inputs.map(({ counts, total, usPerCall }) => {
    const share = (counts.get(stage) ?? 0) / total;
    return `${(100 * share).toFixed(1)} | ${(share * usPerCall).toFixed(1)}`;
  });
  console.log(`| ${stage} | ${cells.join(' | ')} |`);
}
console.log(`| samples | ${inputs.map(({ total, usPerCall }) => `${total} | ${usPerCall}`).join(' | ')} |`);
