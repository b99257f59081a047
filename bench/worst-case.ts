import { parse, validate, type DocumentNode } from 'graphql';
import { OPERATIONS } from '../schema/catalogue/index.ts';
import { worstCaseCredits } from '../schema/pipeline/worst-case-credits.ts';
import { schema } from '../schema/schema.ts';
import { withFragments } from '../schema/zod-graphql.ts';

/**
 * CPU time of the worst-case estimate every GraphQL, REST and MCP call now pays before it runs, as a ratio to one
 * graphql-js validation of the same parsed document, measured in the same run (yoga caches validation; the ratio
 * says how heavy the estimate is next to work of the same kind). Goal: at most 0.25× on the catalogue's documents.
 */
const ROUNDS = 20_000;

function microseconds(run: () => void): number {
  for (let i = 0; i < ROUNDS / 10; i++) run();
  const started = process.hrtime.bigint();
  for (let i = 0; i < ROUNDS; i++) run();
  return Number(process.hrtime.bigint() - started) / ROUNDS / 1000;
}

const catalogueDocument = (operationId: string): DocumentNode => {
  const op = OPERATIONS.find((entry) => entry.operationId === operationId);
  if (!op) throw new Error(`no operation ${operationId}`);
  return parse(withFragments(op.graphql.document));
};

const cases: Array<[string, DocumentNode, Record<string, unknown>]> = [
  ['REST GET /v1/forum/posts/{id} document', catalogueDocument('getForumPost'), { id: '1a00005' }],
  ['REST POST /v1/microblog/search document', catalogueDocument('searchMicroblogPosts'), { query: 'api', limit: 50 }],
  [
    'walk: 100 posts → authors → 5 posts each',
    parse('query($n: Int) { microblogPostSearch(query: "api", limit: 100) { items { id text authorProfile { username posts(limit: $n) { items { id text } } } quotedPost { authorProfile { username } } } } }'),
    { n: 5 },
  ],
];

let met = true;
for (const [name, document, variables] of cases) {
  const estimate = microseconds(() => worstCaseCredits(schema, document, variables));
  const validation = microseconds(() => validate(schema, document));
  const ratio = estimate / validation;
  if (!name.startsWith('walk') && ratio > 0.25) met = false;
  console.log(`${name}: estimate ${estimate.toFixed(1)} µs, validation ${validation.toFixed(1)} µs, ratio ${ratio.toFixed(2)}× (worst case ${worstCaseCredits(schema, document, variables).credits} credits)`);
}
console.log(`goal ≤ 0.25× of validation on the catalogue documents: ${met ? 'met' : 'MISSED'}`);
