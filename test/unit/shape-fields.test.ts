import { GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ForumCommentShape, ForumPostShape, SubforumShape } from '../../adapters/shapes/forum-shapes.ts';
import { MicroblogListShape, MicroblogPostBaseShape, MicroblogPostShape, MicroblogProfileShape, MicroblogSpaceShape } from '../../adapters/shapes/microblog-shapes.ts';
import { schema } from '../../schema/schema.ts';

/**
 * A field built from a shape is its item's own property: it must reach the schema with no resolver, so compiled
 * execution (graphql-jit) reads it inline. With a resolver, every field of every item costs a call with its own
 * resolve info, arguments and path (30 of them for one forum post).
 */
const SHAPED: Array<[string, z.ZodObject]> = [
  ['ForumPost', ForumPostShape],
  ['ForumComment', ForumCommentShape],
  ['Subforum', SubforumShape],
  ['MicroblogPost', MicroblogPostShape],
  ['MicroblogEmbeddedPost', MicroblogPostBaseShape],
  ['MicroblogProfile', MicroblogProfileShape],
  ['MicroblogList', MicroblogListShape],
  ['MicroblogSpace', MicroblogSpaceShape],
];

describe('fields built from a shape', () => {
  it.each(SHAPED)('%s: every shape field has no resolver', (typeName, shape) => {
    const type = schema.getType(typeName);
    expect(type).toBeInstanceOf(GraphQLObjectType);
    const fields = (type as GraphQLObjectType).getFields();
    const names = Object.keys(shape.shape);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      expect(fields[name], `${typeName}.${name}`).toBeDefined();
      expect(fields[name]!.resolve, `${typeName}.${name}`).toBeUndefined();
    }
  });
});
