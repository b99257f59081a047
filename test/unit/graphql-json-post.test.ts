import { describe, expect, it } from 'vitest';
import { keylessContext } from '../support/keyless-context.ts';
import { createJsonPostHandler, isJsonPost, jsonMediaTypeOf } from '../../schema/pipeline/graphql-json-post.ts';
import { createGraphQLServer } from '../../schema/pipeline/graphql-server.ts';
import { operationPolicy } from '../../schema/pipeline/use-operation-policy.ts';
import { operationByField } from '../../schema/catalogue/index.ts';

const policy = operationPolicy(operationByField);
const graphql = createGraphQLServer({ graphiql: false, policy });
const answer = createJsonPostHandler(graphql, policy);

/** A call that needs nothing from the service: `__typename` is no operation of the catalogue. */
const context = keylessContext;

const typename = JSON.stringify({ query: '{ __typename }' });

/** The media type yoga answers for an `Accept` header, or 'other' (a stream, a refusal). */
async function yogaMediaType(accept: string | undefined): Promise<string> {
  const response = await graphql.fetch(
    new Request('http://localhost/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...(accept === undefined ? {} : { accept }) }, body: typename }),
    context(),
  );
  const type = response.headers.get('content-type') ?? '';
  await response.text();
  return response.status === 200 && /^application\/(graphql-response\+)?json; charset=utf-8$/.test(type) ? type.split(';')[0] : 'other';
}

describe('the common GraphQL request: which requests it takes, and in which media type it answers', () => {
  it.each([
    undefined,
    '',
    '*/*',
    'application/json',
    'application/graphql-response+json',
    'application/graphql-response+json, application/json;q=0.9',
    'application/json, application/graphql-response+json',
    'Application/JSON',
    'application/*',
    'text/html, */*;q=0.1',
    'text/event-stream',
    'multipart/mixed',
    'text/event-stream, application/json',
    'application/json; charset=latin1',
    'application/json; charset=latin1, application/graphql-response+json',
    'text/plain',
  ])('Accept %j picks what yoga picks', async (accept) => {
    expect(jsonMediaTypeOf(accept) ?? 'other').toBe(await yogaMediaType(accept));
  });

  it('takes POST /graphql with a JSON body and no Origin, and nothing else', () => {
    const post = (headers: Record<string, string>, method = 'POST', url = '/graphql') => isJsonPost({ method, url, headers });
    expect(post({ 'content-type': 'application/json' })).toBe(true);
    expect(post({ 'content-type': 'application/json; charset=utf-8' })).toBe(true);
    expect(post({ 'content-type': 'application/json' }, 'GET')).toBe(false);
    expect(post({ 'content-type': 'application/json' }, 'POST', '/graphql?query=x')).toBe(false);
    expect(post({ 'content-type': 'application/json', origin: 'https://app.example' })).toBe(false);
    expect(post({ 'content-type': 'application/graphql' })).toBe(false);
    expect(post({ 'content-type': 'application/x-www-form-urlencoded' })).toBe(false);
    expect(post({})).toBe(false);
  });

  it('answers a request it takes, with the request id and credit headers yoga adds', async () => {
    const ctx = context();
    expect(await answer({ body: typename, headers: { 'content-type': 'application/json' } }, ctx)).toEqual({
      status: 200,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'x-credits-charged': '0', 'x-request-id': 'req-unit-0001' },
      body: '{"data":{"__typename":"Query"}}',
    });
  });

  it.each([
    ['a batch', JSON.stringify([{ query: '{ __typename }' }])],
    ['JSON that does not parse', '{"query":'],
    ['null', 'null'],
    ['a string', '"{ __typename }"'],
    ['no query', '{}'],
    ['a query that is not a string', '{"query":1}'],
    ['variables that are not an object', '{"query":"{ __typename }","variables":[1]}'],
    ['extensions that are not an object', '{"query":"{ __typename }","extensions":"x"}'],
    ['an operation name that is not a string', '{"query":"{ __typename }","operationName":1}'],
    ['a parameter yoga does not know', '{"query":"{ __typename }","documentId":"x"}'],
  ])('hands %s to yoga, before anything runs', async (_name, body) => {
    const ctx = context();
    expect(await answer({ body, headers: { 'content-type': 'application/json' } }, ctx)).toBeUndefined();
    expect(ctx.responseHeaders).toEqual({});
  });

  it('hands a request for an event stream to yoga', async () => {
    expect(await answer({ body: typename, headers: { 'content-type': 'application/json', accept: 'text/event-stream' } }, context())).toBeUndefined();
  });
});

describe('validation, once per parsed document', () => {
  it('answers the cached result for a document seen before, and still maps errors onto the catalogue', () => {
    const enveloped = graphql.getEnveloped(context());
    const valid = enveloped.parse('{ __typename }');
    const first = enveloped.validate(enveloped.schema, valid);
    expect(first).toEqual([]);
    expect(enveloped.validate(enveloped.schema, valid)).toBe(first);
    const invalid = enveloped.parse('{ whoamii { keyId } }');
    for (let i = 0; i < 2; i++) {
      expect(enveloped.validate(enveloped.schema, invalid).map((error: { extensions?: { code?: string } }) => error.extensions?.code)).toEqual(['invalid_request']);
    }
  });
});
