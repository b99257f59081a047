import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../schema/catalogue/index.ts';
import { operationArgumentSchema } from '../../schema/operation-fields.ts';

const byField = (field: string) => OPERATIONS.find((op) => op.graphql.field === field)!;

describe('the NUL (U+0000) refusal runs only where an operation stores text', () => {
  it('a mutation refuses it, naming the member, nested ones included', () => {
    const parsed = operationArgumentSchema(byField('createWebhook')).safeParse({ name: 'a\u0000', url: 'https://1.1.1.1/hook' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues).toMatchObject([{ path: ['name'], message: expect.stringContaining('U+0000') }]);
    const monitor = operationArgumentSchema(byField('createMonitor')).safeParse({ name: 'm', target: { kind: 'search', keywords: 'ru\u0000st' }, schedule: 'manual' });
    expect(monitor.error?.issues).toMatchObject([{ path: ['target', 'keywords'] }]);
  });

  it('a read does not scan its arguments: a search term holding it goes on as any other text', () => {
    const parsed = operationArgumentSchema(byField('searchForumPosts')).safeParse({ query: 'ru\u0000st' });
    expect(parsed.error?.issues).toBeUndefined();
    expect(parsed.data).toMatchObject({ query: 'ru\u0000st' });
  });

  it('the decision is made once per operation: the same schema every time', () => {
    for (const op of OPERATIONS) expect(operationArgumentSchema(op)).toBe(operationArgumentSchema(op));
  });
});

describe('a lone surrogate is refused where a NUL is, and for the same reason (storable text)', () => {
  it('a mutation refuses it, naming the member; a surrogate pair is text like any other', () => {
    const monitor = operationArgumentSchema(byField('createMonitor')).safeParse({ name: 'm', target: { kind: 'search', keywords: 'rust\udc00' }, schedule: 'manual' });
    expect(monitor.error?.issues).toMatchObject([{ path: ['target', 'keywords'], message: expect.stringContaining('lone surrogate') }]);
    const paired = operationArgumentSchema(byField('createWebhook')).safeParse({ name: 'hook \ud83e\udd80', url: 'https://1.1.1.1/hook' });
    expect(paired.error?.issues).toBeUndefined();
  });
});
