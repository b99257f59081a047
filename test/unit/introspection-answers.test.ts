import { getIntrospectionQuery, parse, type DocumentNode, type ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { keylessContext } from '../support/keyless-context.ts';
import { operationByField } from '../../schema/catalogue/index.ts';
import { createJsonPostHandler } from '../../schema/pipeline/graphql-json-post.ts';
import { createGraphQLServer } from '../../schema/pipeline/graphql-server.ts';
import { INTROSPECTION_ANSWERS_MAX, withIntrospectionAnswers } from '../../schema/pipeline/introspection-answers.ts';
import { operationPolicy, type OperationPolicy, type PolicyArgs } from '../../schema/pipeline/use-operation-policy.ts';

const context = keylessContext;

/** An inner policy that plans nothing and, like the real one for a caller with a key, adds its credits beside the data. */
const withCredits: OperationPolicy = async () => ({ settle: async (result) => ({ ...result, extensions: { credits: { charged: 0, remaining: 7 } } }) });

const argsOf = (document: DocumentNode, variableValues: Record<string, unknown> = {}): PolicyArgs => ({ schema: undefined as never, document, variableValues, contextValue: context() });

type Step = Awaited<ReturnType<OperationPolicy>>;
const settleOf = (step: Step) => (step && 'settle' in step ? step.settle : undefined);
const answerOf = (step: Step) => (step && 'answer' in step ? (step.answer as ExecutionResult & { stringify: (r: ExecutionResult) => string }) : undefined);

describe('introspection is executed once per operation', () => {
  const schemaDocument = parse('query Q { __schema { queryType { name } } }');

  it('runs the first request, answers the next from what it returned whatever else they send, the policy still settling each', async () => {
    const policy = withIntrospectionAnswers(withCredits);
    const first = await policy(argsOf(schemaDocument, { junk: 'a'.repeat(1000) }));
    expect(answerOf(first)).toBeUndefined();
    const executed: ExecutionResult = { data: { __schema: { queryType: { name: 'Query' } } } };
    expect(await settleOf(first)!(executed)).toEqual({ ...executed, extensions: { credits: { charged: 0, remaining: 7 } } });
    // Variables the operation does not declare change nothing, and make no entry of their own (commit review h: they
    // were the key, so junk variables grew the process without bound).
    for (const variables of [{}, { junk: 'b' }, { other: 1 }]) {
      const again = answerOf(await policy(argsOf(schemaDocument, variables)));
      expect(again?.data).toBe(executed.data);
      expect(again?.extensions).toEqual({ credits: { charged: 0, remaining: 7 } });
      // The kept JSON is spliced in: the text is what serialising the answer whole would give.
      expect(JSON.parse(again!.stringify(again!))).toEqual(JSON.parse(JSON.stringify({ data: again!.data, extensions: again!.extensions })));
    }
  });

  it('keeps no answer of an operation that declares variables, with errors, or selecting a catalogue field', async () => {
    const policy = withIntrospectionAnswers(withCredits);
    const declared = parse('query Q($d: Boolean!) { __schema { queryType { name } types @include(if: $d) { name } } }');
    await settleOf(await policy(argsOf(declared, { d: false })))!({ data: { __schema: { queryType: { name: 'Query' } } } });
    expect(answerOf(await policy(argsOf(declared, { d: false })))).toBeUndefined();
    const failing = parse('{ __type(name: "Query") { name } }');
    await settleOf(await policy(argsOf(failing)))!({ data: null, errors: [new Error('boom') as never] });
    expect(answerOf(await policy(argsOf(failing)))).toBeUndefined();
    const mixed = parse('{ __typename health { status } }');
    await settleOf(await policy(argsOf(mixed)))!({ data: { __typename: 'Query', health: { status: 'ok' } } });
    expect(answerOf(await policy(argsOf(mixed)))).toBeUndefined();
  });

  it('holds answers up to its bounds in characters (answers and query text) and in operations, oldest out first', async () => {
    const sized = withIntrospectionAnswers(withCredits, 100);
    const documents = [parse('{ a: __typename }'), parse('{ b: __typename }'), parse('{ c: __typename }')];
    for (const document of documents) await settleOf(await sized(argsOf(document)))!({ data: { x: 'y'.repeat(20) } });
    expect(answerOf(await sized(argsOf(documents[0])))).toBeUndefined();
    expect(answerOf(await sized(argsOf(documents[1])))).toBeDefined();
    expect(answerOf(await sized(argsOf(documents[2])))).toBeDefined();
    const counted = withIntrospectionAnswers(withCredits);
    const many = Array.from({ length: INTROSPECTION_ANSWERS_MAX + 1 }, (_, i) => parse(`{ n${i}: __typename }`));
    for (const document of many) await settleOf(await counted(argsOf(document)))!({ data: { x: 'Query' } });
    expect(answerOf(await counted(argsOf(many[0])))).toBeUndefined();
    expect(answerOf(await counted(argsOf(many[INTROSPECTION_ANSWERS_MAX])))).toBeDefined();
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
