import { lexicographicSortSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.ts';
import { OPERATIONS } from './catalogue/index.ts';
import { registerOperations } from './operation-fields.ts';
import './forum-walks.ts';
import './microblog-walks.ts';

registerOperations(OPERATIONS);

/** The executable schema. Only this file calls toSchema(); no type file imports it. */
export const schema: GraphQLSchema = lexicographicSortSchema(builder.toSchema());
