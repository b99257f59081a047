import { lexicographicSortSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.ts';
import './fields/system.ts';
import './fields/account.ts';
import './fields/forum.ts';
import './fields/microblog.ts';

/** The executable schema. Only this file calls toSchema(); no type file imports it. */
export const schema: GraphQLSchema = lexicographicSortSchema(builder.toSchema());
