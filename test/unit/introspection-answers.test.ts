import { getIntrospectionQuery, parse, type DocumentNode, type ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { Meter } from '../../core/meter.ts';
import type { RequestContext } from '../../core/request-context.ts';
import type { ServiceDeps } from '../../core/service-deps.ts';
import { operationByField } from '../../schema/catalogue/index.ts';
import { createJsonPostHandler } from '../../schema/pipeline/graphql-json-post.ts';
import { createGraphQLServer } from '../../schema/pipeline/graphql-server.ts';
import { withIntrospectionAnswers } from '../../schema/pipeline/introspection-answers.ts';
import { operationPolicy, type OperationPolicy, type PolicyArgs } from '../../schema/pipeline/use-operation-policy.ts';

const context = (): RequestContext => ({
  requestId: 'req-unit-0001',
  surface: 'graphql',
  authorization: undefined,
  meter: new Meter(),
  deps: {} as ServiceDeps,
  responseHeaders: {},
  memo: new Map(),
  now: () => new Date('2026-01-01T00:00:00Z'),
});

/** An inner policy that plans nothing and, like the real one for a caller with a key, adds its credits beside the data. */
const withCredits: OperationPolicy = async () => ({ settle: async (result) => ({ ...result, extensions: { credits: { charged: 0, remaining: 7 } } }) });

const argsOf = (document: DocumentNode, variableValues: Record<string, unknown> = {}): PolicyArgs => ({ schema: undefined as never, document, variableValues, contextValue: context() });

type Step = Awaited<ReturnType<OperationPolicy>>;
const settleOf = (step: Step) => (step && 'settle' in step ? step.settle : undefined);
const answerOf = (step: Step) => (step && 'answer' in step ? (step.answer as ExecutionResult & { stringify: (r: ExecutionResult) => string }) : undefined);

describe('introspection is executed once per document and variables', () => {
  const schemaDocument = parse('query Q($d: Boolean!) { __schema { queryType { name } types @include(if: $d) { name } } }');

  it('runs the first request, answers the next from what it returned, the policy still settling each', async () => {
    const policy = withIntrospectionAnswers(withCredits);
    const first = await policy(argsOf(schemaDocument, { d: false }));
    expect(answerOf(first)).toBeUndefined();
    const executed: ExecutionResult = { data: { __schema: { queryType: { name: 'Query' } } } };
    expect(await settleOf(first)!(executed)).toEqual({ ...executed, extensions: { credits: { charged: 0, remaining: 7 } } });
    const again = answerOf(await policy(argsOf(schemaDocument, { d: false })));
    expect(again?.data).toBe(executed.data);
    expect(again?.extensions).toEqual({ credits: { charged: 0, remaining: 7 } });
    // The kept JSON is spliced in: the text is what serialising the answer whole would give.
    expect(JSON.parse(again!.stringify(again!))).toEqual(JSON.parse(JSON.stringify({ data: again!.data, extensions: again!.extensions })));
    // Other variables are another answer.
    expect(answerOf(await policy(argsOf(schemaDocument, { d: true })))).toBeUndefined();
  });

  it('keeps no answer with errors, and nothing of a document that selects a catalogue field', async () => {
    const policy = withIntrospectionAnswers(withCredits);
    const failing = parse('{ __type(name: "Query") { name } }');
    await settleOf(await policy(argsOf(failing)))!({ data: null, errors: [new Error('boom') as never] });
    expect(answerOf(await policy(argsOf(failing)))).toBeUndefined();
    const mixed = parse('{ __typename health { status } }');
    await settleOf(await policy(argsOf(mixed)))!({ data: { __typename: 'Query', health: { status: 'ok' } } });
    expect(answerOf(await policy(argsOf(mixed)))).toBeUndefined();
  });

  it('holds answers up to its bound, oldest document out first', async () => {
    const policy = withIntrospectionAnswers(withCredits, 60);
    const documents = [parse('{ a: __typename }'), parse('{ b: __typename }'), parse('{ c: __typename }')];
    for (const document of documents) await settleOf(await policy(argsOf(document)))!({ data: { x: 'y'.repeat(20) } });
    expect(answerOf(await policy(argsOf(documents[0])))).toBeUndefined();
    expect(answerOf(await policy(argsOf(documents[1])))).toBeDefined();
    expect(answerOf(await policy(argsOf(documents[2])))).toBeDefined();
  });

  it('answers the same text over HTTP as executing it does, request after request', async () => {
    const plain = operationPolicy(operationByField);
    const kept = withIntrospectionAnswers(plain);
    const graphql = createGraphQLServer({ graphiql: false, policy: kept });
    const answer = createJsonPostHandler(graphql, kept);
    const executing = createJsonPostHandler(createGraphQLServer({ graphiql: false, policy: plain }), plain);
    const body = JSON.stringify({ query: getIntrospectionQuery({ descriptions: true }) });
    const expected = await executing({ body, headers: { 'content-type': 'application/json' } }, context());
    for (let i = 0; i < 3; i++) {
      const got = await answer({ body, headers: { 'content-type': 'application/json' } }, context());
      expect(got?.status).toBe(200);
      expect(got?.body).toBe(expected?.body);
    }
  });
});
