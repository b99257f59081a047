import { GraphQLScalarType } from 'graphql';
import { DateTimeResolver } from 'graphql-scalars';

/**
 * `Date#toISOString`'s form, what the adapters and resolvers return, with each field in its range. (A day past its
 * month's end, 02-30, would pass: no adapter writes one, as they all write `toISOString()`.)
 */
const CANONICAL = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/**
 * graphql-scalars' DateTime, except that a string already in canonical form is sent as it is: graphql-scalars
 * validates it with a set of expressions and parses it into a Date, which serializes back to the same string, and
 * that cost more than the rest of a small response (whoami's). Any other value takes graphql-scalars' path (and its
 * errors).
 */
export const DateTimeScalar = new GraphQLScalarType({
  ...DateTimeResolver.toConfig(),
  serialize: (value) => (typeof value === 'string' && CANONICAL.test(value) ? value : DateTimeResolver.serialize(value)),
});
