import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { keylessContext } from '../support/keyless-context.ts';
import { operationByField } from '../../schema/catalogue/index.ts';
import { schema } from '../../schema/schema.ts';
import { operationPolicy } from '../../schema/pipeline/use-operation-policy.ts';

describe('the policy, for a document whose operation it cannot resolve', () => {
  it('refuses it rather than let it run unchecked: graphql-jit reads an empty name as "the only operation"', async () => {
    const ctx = keylessContext();
    const policy = operationPolicy(operationByField);
    for (const operationName of ['', 'B']) {
      const step = await policy({ schema, document: parse('query A { searchForumPosts(query: "rust") { items { id } } }'), operationName, contextValue: ctx });
      // Before: undefined, so execution went on with no authentication, no rate limit and no charge (review h, G-L2).
      expect(step && 'answer' in step ? step.answer.errors?.[0]?.extensions?.code : step).toBe('invalid_request');
    }
  });
});
