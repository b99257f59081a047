import { readFileSync } from 'node:fs';
import { isObjectType, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../schema/schema.ts';

/**
 * The printed GraphQL schema is committed as `schema/schema.graphql`: any change to a type, field, argument or
 * description shows up in review. Regenerate with `npm run schema:print` after an intended change.
 */
describe('schema.graphql', () => {
  it('matches the schema the code builds', () => {
    expect(printSchema(schema)).toBe(readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8'));
  });

  it('describes every type and field', () => {
    const undescribed: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || ['String', 'Int', 'Float', 'Boolean', 'ID'].includes(type.name)) continue;
      if (!type.description) undescribed.push(type.name);
      if (isObjectType(type)) {
        for (const field of Object.values(type.getFields())) if (!field.description) undescribed.push(`${type.name}.${field.name}`);
      }
    }
    expect(undescribed).toEqual([]);
  });
});
