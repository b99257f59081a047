import { describe, expect, it } from 'vitest';
import { bind, toInt } from '../../../adapters/db/sql.ts';

describe('named SQL parameters', () => {
  it('binds :names in order, repeats included, and leaves ::casts alone', () => {
    expect(bind('select :a::uuid, :b, :a::bigint', { a: 'x', b: 2 })).toEqual({ sql: 'select ?::uuid, ?, ?::bigint', params: ['x', 2, 'x'] });
  });

  it('refuses a statement whose value is missing', () => {
    expect(() => bind('select :missing', {})).toThrow(/:missing/);
  });

  it('reads bigint columns from either driver as numbers', () => {
    expect([toInt('42'), toInt(42n), toInt(7), toInt(null)]).toEqual([42, 42, 7, 0]);
  });
});
