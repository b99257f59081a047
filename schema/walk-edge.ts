import type { GraphQLResolveInfo } from 'graphql';
import type { ObjectRef } from '@pothos/core';
import type { z } from 'zod';
import type { RequestContext } from '../core/request-context.ts';
import { builder, type BuilderTypes } from './builder.ts';
import type { BillingUnit, OperationSpec, UnitSource } from './catalogue/operation.ts';
import { PAGE_BOUND } from '../core/page.ts';
import { edgeCost, edgePriceText, FIELD_COST, pageBound } from './catalogue/worst-case.ts';
import { ARGUMENT_SCHEMA, argumentSchemaOf, meterReturned } from './operation-fields.ts';
import { argsFromZod, outputTypeOf } from './zod-graphql.ts';

export interface EdgeSpec<Parent> {
  /** The catalogue operation this edge walks: its arguments, result type and unit prices are the edge's. */
  op: OperationSpec;
  /** Members of the operation's input the parent supplies (the post's id, the profile's user): not arguments of the edge. */
  fromParent?: readonly string[];
  /** What the edge returns, when it is one item of the operation's result rather than the whole of it. */
  returns?: { shape: z.ZodType; units: Partial<Record<BillingUnit, UnitSource>>; asked: Record<string, unknown> };
  /** What the edge is, in a sentence; its price is appended from the catalogue. */
  description: string;
  resolve: (parent: Parent, args: Record<string, unknown>, ctx: RequestContext, info: GraphQLResolveInfo) => Promise<unknown>;
}

/**
 * A field a query walks from one object to what the platform links it to. It is the catalogue operation it walks,
 * seen from the parent: the operation's own arguments (less what the parent supplies) with the same validation,
 * its result type, and its unit prices — billed for what it returns, declared in its description and in its
 * worst case (read before execution). Nullable, so a failing edge never hides its parent.
 */
export function walkEdge<Parent>(parent: ObjectRef<BuilderTypes, Parent>, name: string, spec: EdgeSpec<Parent>): void {
  const { op } = spec;
  const omitted = Object.fromEntries((spec.fromParent ?? []).map((key) => [key, true as const]));
  const input = op.input.omit(omitted as never);
  const { type } = outputTypeOf(spec.returns?.shape ?? op.payload, op.operationId);
  const units = spec.returns?.units ?? op.billing.returns ?? {};
  const dataField = spec.returns ? undefined : op.result?.dataField;
  const worstCaseOf = edgeCost(op, spec.returns?.asked);
  builder.objectField(parent, name, (t) => {
    const args = argsFromZod(t as never, input);
    return t.field({
      type: type as never,
      nullable: true as never,
      description: `${spec.description} ${edgePriceText(op, spec.returns?.asked)}`,
      extensions: {
        [FIELD_COST]: edgeCost(op, spec.returns?.asked),
        ...(spec.returns ? {} : { [PAGE_BOUND]: pageBound(op) }),
        ...(Object.keys(args).length ? { [ARGUMENT_SCHEMA]: argumentSchemaOf(input) } : {}),
      },
      args: (Object.keys(args).length ? t.validate(args, argumentSchemaOf(input) as never) : {}) as never,
      resolve: async (source, edgeArgs, ctx, info) => {
        const release = ctx.creditGuard ? await ctx.creditGuard(worstCaseOf(edgeArgs as Record<string, unknown>).credits) : undefined;
        try {
          const payload = await spec.resolve(source as Parent, edgeArgs as Record<string, unknown>, ctx, info);
          meterReturned(units, dataField, payload, ctx, info);
          return payload as never;
        } finally {
          release?.();
        }
      },
    });
  });
}
