import type { GraphQLResolveInfo } from 'graphql';
import { z } from 'zod';
import { builder } from './builder.ts';
import type { OperationSpec } from './catalogue/operation.ts';
import type { RequestContext } from './pipeline/request-context.ts';
import { argsFromZod, unwrap } from './zod-graphql.ts';

type Resolve<Input extends z.ZodObject> = (
  args: z.output<Input>,
  ctx: RequestContext,
  info: GraphQLResolveInfo,
) => unknown;

/**
 * The operation's input schema, reading an explicit null for an optional argument as the argument's absence:
 * GraphQL declares such arguments nullable, so `cursor: null` (or a null variable) is a valid way to omit them.
 */
function nullMeansAbsent(input: z.ZodObject) {
  const optional = Object.entries(input.shape as Record<string, z.ZodType>)
    .filter(([, schema]) => !unwrap(schema).nullable)
    .map(([name]) => name);
  return z.preprocess((value) => {
    if (!value || typeof value !== 'object') return value;
    const args = { ...(value as Record<string, unknown>) };
    for (const name of optional) if (args[name] === null) delete args[name];
    return args;
  }, input);
}

/**
 * Registers the GraphQL root field of a catalogue operation: its arguments and their validation come from
 * the catalogue's zod input, so GraphQL, REST and MCP all validate with the same schema.
 */
export function operationField<Input extends z.ZodObject>(
  op: OperationSpec<Input>,
  // The payload type: any Pothos output type reference.
  type: unknown,
  resolve: Resolve<Input>,
): void {
  const register = op.graphql.kind === 'query' ? builder.queryField.bind(builder) : builder.mutationField.bind(builder);
  register(op.graphql.field, (t) => {
    const args = argsFromZod(t as never, op.input);
    // Pothos refuses to validate an empty argument list; operations without input have nothing to validate.
    return t.field({
      type: type as never,
      // Root fields are nullable so that one failing field of a multi-field request leaves the others' data
      // (and their billing) intact; REST and MCP report the error of their single field instead.
      nullable: true as never,
      description: op.description,
      args: (Object.keys(args).length ? t.validate(args, nullMeansAbsent(op.input) as never) : {}) as never,
      resolve: (_root, args, ctx, info) => resolve(args as z.output<Input>, ctx, info) as never,
    });
  });
}
