import type { LoadResult } from './load.ts';

/** Issue 13's goals: each a ratio of two targets measured in the same run. */
export interface Goal {
  goal: string;
  numerator: string;
  denominator: string;
  atLeast: number;
}

export const TARGETS = {
  bare: 'bare node:http',
  proxy: 'bare node:http + one undici hop to the simulated forum',
  health: 'REST GET /health',
  graphqlHealth: 'GraphQL POST /graphql { health }',
  whoami: 'REST GET /v1/whoami',
  billed: 'REST GET /v1/forum/posts/{id}, billed, one hot workspace',
  unbilled: 'REST GET /v1/forum/posts/{id}, billing off',
  twoInstances: 'same billed read, two instances on one PostgreSQL (aggregate)',
} as const;

export const GOALS: Goal[] = [
  { goal: 'authenticated free call ≥ 0.35× bare', numerator: TARGETS.whoami, denominator: TARGETS.bare, atLeast: 0.35 },
  { goal: 'billed read ≥ 0.6× the bare one-hop proxy', numerator: TARGETS.billed, denominator: TARGETS.proxy, atLeast: 0.6 },
  { goal: 'billed read ≥ 0.85× the same read unbilled', numerator: TARGETS.billed, denominator: TARGETS.unbilled, atLeast: 0.85 },
  { goal: 'two instances ≥ 1.6× one instance', numerator: TARGETS.twoInstances, denominator: TARGETS.billed, atLeast: 1.6 },
  { goal: 'GraphQL health ≥ 0.25× bare', numerator: TARGETS.graphqlHealth, denominator: TARGETS.bare, atLeast: 0.25 },
];

export interface GoalOutcome extends Goal {
  ratio: number | null;
  met: boolean | null;
}

/** Each goal against one database's results (and the shared floor); null where a target was not measured. */
export function judge(results: readonly LoadResult[]): GoalOutcome[] {
  const rate = (name: string) => results.find((result) => result.name === name)?.requestsPerSecond;
  return GOALS.map((goal) => {
    const numerator = rate(goal.numerator);
    const denominator = rate(goal.denominator);
    const ratio = numerator !== undefined && denominator ? numerator / denominator : null;
    return { ...goal, ratio, met: ratio === null ? null : ratio >= goal.atLeast };
  });
}

export function printTable(title: string, results: readonly LoadResult[], bare: LoadResult, baselineName = 'bare'): void {
  console.log(`\n### ${title}\n`);
  const cpu = results.some((r) => r.cpu);
  console.log(`| target | req/s | × ${baselineName} | p50 ms | p99 ms | non-2xx | errors |${cpu ? ' CPU µs/call | busiest thread µs/call | platforms µs/call | machine µs/call | machine busy |' : ''}`);
  console.log(`|---|---:|---:|---:|---:|---:|---:|${cpu ? '---:|---:|---:|---:|---:|' : ''}`);
  for (const r of results) {
    const use = r.cpu
      ? ` ${r.cpu.ownUsPerCall} | ${r.cpu.busiestThreadUsPerCall} (${r.cpu.busiestThread}) | ${r.cpu.upstreamUsPerCall ?? '—'} | ${r.cpu.machineUsPerCall} | ${(100 * r.cpu.machineBusy).toFixed(0)} % |`
      : cpu
        ? ' — | — | — | — | — |'
        : '';
    console.log(`| ${r.name} | ${r.requestsPerSecond.toFixed(0)} | ${(r.requestsPerSecond / bare.requestsPerSecond).toFixed(2)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${r.non2xx} | ${r.errors} |${use}`);
  }
}

/**
 * A target's throughput ceilings from its CPU: each process's busiest thread (its event loop, one core at most; the
 * process's other threads, such as the embedded database's worker, run beside it), and the whole machine.
 */
export interface Ceilings {
  /** req/s if the busiest threads were the only limit: processes × 1e6 / their CPU µs per call. */
  threads: number;
  /** req/s if every core ran at 100 % for the same CPU per call across all processes. */
  machine: number;
  /** Share of one core each the busiest threads used. */
  threadsBusy: number;
}

export function ceilingsOf(result: LoadResult, processes: number): Ceilings | undefined {
  const cpu = result.cpu;
  if (!cpu || cpu.busiestThreadUsPerCall <= 0 || cpu.machineUsPerCall <= 0) return undefined;
  return {
    threads: (processes * 1e6) / cpu.busiestThreadUsPerCall,
    machine: (cpu.cores * 1e6) / cpu.machineUsPerCall,
    threadsBusy: (result.requestsPerSecond * cpu.busiestThreadUsPerCall) / 1e6 / processes,
  };
}

/** What held each goal's numerator back: its busiest thread(s) or the machine, with the CPU per call that set it. */
export function printBounds(outcomes: readonly GoalOutcome[], results: readonly LoadResult[], processesOf: (name: string) => number): void {
  const byName = new Map(results.map((r) => [r.name, r]));
  const lines: string[] = [];
  for (const o of outcomes) {
    const numerator = byName.get(o.numerator);
    const denominator = byName.get(o.denominator);
    if (!numerator?.cpu || !denominator?.cpu || o.ratio === null) continue;
    const limits = ceilingsOf(numerator, processesOf(o.numerator));
    if (!limits) continue;
    const each = processesOf(o.numerator) > 1;
    const bound = limits.threadsBusy >= 0.9 ? `its busiest thread${each ? 's' : ''} (${numerator.cpu.busiestThread}, ${(100 * limits.threadsBusy).toFixed(0)} % of a core${each ? ' each' : ''})` : numerator.cpu.machineBusy >= 0.9 ? `the machine (${(100 * numerator.cpu.machineBusy).toFixed(0)} % of ${numerator.cpu.cores} cores busy)` : 'neither: it waited';
    lines.push(`| ${o.goal} | ${o.ratio.toFixed(2)} | ${numerator.cpu.ownUsPerCall} against ${denominator.cpu.ownUsPerCall} | ${numerator.cpu.busiestThreadUsPerCall} (${numerator.cpu.busiestThread}) | ${bound} | ${(Math.min(limits.threads, limits.machine) / denominator.requestsPerSecond).toFixed(2)} |`);
  }
  if (lines.length === 0) return;
  console.log('\n| goal | ratio | CPU µs per call, numerator against denominator | numerator\'s busiest thread µs per call | numerator bound by | ratio at the numerator\'s ceiling |');
  console.log('|---|---:|---|---|---|---:|');
  for (const line of lines) console.log(line);
}

export function printGoals(outcomes: readonly GoalOutcome[]): void {
  console.log('\n| goal | ratio | met |');
  console.log('|---|---:|---|');
  for (const o of outcomes) console.log(`| ${o.goal} | ${o.ratio === null ? '—' : o.ratio.toFixed(2)} | ${o.met === null ? 'not measured' : o.met ? 'yes' : 'NO'} |`);
}
