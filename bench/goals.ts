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
  console.log(`| target | req/s | × ${baselineName} | p50 ms | p99 ms | non-2xx | errors |`);
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(`| ${r.name} | ${r.requestsPerSecond.toFixed(0)} | ${(r.requestsPerSecond / bare.requestsPerSecond).toFixed(2)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${r.non2xx} | ${r.errors} |`);
  }
}

export function printGoals(outcomes: readonly GoalOutcome[]): void {
  console.log('\n| goal | ratio | met |');
  console.log('|---|---:|---|');
  for (const o of outcomes) console.log(`| ${o.goal} | ${o.ratio === null ? '—' : o.ratio.toFixed(2)} | ${o.met === null ? 'not measured' : o.met ? 'yes' : 'NO'} |`);
}
