import type { GraphQLResolveInfo } from 'graphql';
import type { z } from 'zod';
import type { RunHold } from '../../adapters/monitors/monitor-runner.ts';
import type { BillingUnit } from '../../core/billing-units.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { documentFor } from './graphql-document.ts';
import { payloadOf, type PayloadOf, type ResultMapping } from './payload.ts';

export type { BillingUnit } from '../../core/billing-units.ts';
export type { ResultMapping } from './payload.ts';

/** Scopes of the spec. Implication (read:social ⇒ read:<platform>, *:write ⇒ *:read) is resolved by the identity layer. */
export type Scope =
  | 'read:forum'
  | 'read:microblog'
  | 'read:social'
  | 'usage:read'
  | 'monitors:read'
  | 'monitors:write'
  | 'webhooks:read'
  | 'webhooks:write';

/**
 * Billable units and their prices in credits. Prices are per unit type, so nested GraphQL walks that
 * return, say, a profile inside a post are priced the same way as the operation that returns profiles.
 */
export const UNIT_PRICES: Record<BillingUnit, number> = {
  forum_post: 3,
  forum_comment: 3,
  subforum: 1,
  post: 1,
  profile: 2,
  user: 1,
  list: 2,
  space: 1,
};

/** Credits for a set of counted units. */
export function priceOf(units: ReadonlyMap<BillingUnit, number> | Partial<Record<BillingUnit, number>>): number {
  const entries = units instanceof Map ? [...units] : Object.entries(units);
  return entries.reduce((sum, [unit, count]) => sum + UNIT_PRICES[unit as BillingUnit] * (count ?? 0), 0);
}

/**
 * Where a returned unit is counted: `data` counts each item of the operation's data (each element of a list, one
 * for an object), any other name each element of that member of the data.
 */
export type UnitSource = 'data' | (string & {});

/** A unit billed for a lookup the operation makes before it can answer: resolving `{user}` to an account. */
export interface LookupBilling {
  unit: BillingUnit;
  /** `first_page`: on every first page (the cursor carries the result); `numeric_user`: when `{user}` is an id. */
  when: 'first_page' | 'numeric_user';
}

export interface BillingInput {
  /** Charged on every successful call, even when nothing matched. 0 for free operations. */
  minimumCredits: number;
  /** Requests counted against the per-minute rate limit. */
  rateLimitWeight: number;
  /**
   * What a free call starts that is charged later (a monitor's runs), appended to its description on every surface so
   * that none calls it free without saying so.
   */
  chargedLater?: string;
  /**
   * The hold of the run a free call queues (a monitor's run-now, the baseline run of a create or of a change of what it
   * watches), which the run takes when it executes; undefined when the call queues none. The call's estimate and its
   * credit ceiling count it (docs/monitors.md, Money). Given the validated arguments.
   */
  queuedRun?: (args: Record<string, unknown>, ctx: RequestContext) => RunHold | undefined | Promise<RunHold | undefined>;
  /** Units counted from what the operation returns, by the pipeline itself (resolvers never count them). */
  returns?: Partial<Record<BillingUnit, UnitSource>>;
  /** A unit billed by the lookup helper the resolver calls. */
  lookup?: LookupBilling;
  /**
   * The most units of each kind one call can return, used to size the credit reservation on admission.
   * Omitted for free operations.
   */
  maxUnits?: Partial<Record<BillingUnit, number>>;
  /**
   * Units this request can return at most, from its arguments, when neither a `limit` nor an `ids` list says it
   * (the pipeline reads those itself): the hold is sized to the request, not to the operation's largest result.
   */
  unitsAsked?: (args: Record<string, unknown>) => Partial<Record<BillingUnit, number>>;
}

export interface Billing extends BillingInput {
  /** Every unit the operation may bill (returned and looked up), as published in `x-svc-billing`. */
  units: readonly BillingUnit[];
}

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RestBinding {
  method: HttpMethod;
  /** Express-style path with `:param` segments, e.g. `/v1/forum/posts/:id`. */
  path: string;
  /** HTTP status of a success. Default 200. */
  successStatus?: number;
  /**
   * false for the system endpoints, whose bodies are not wrapped in `{data, meta}`; their status comes
   * from `statusFromData` instead.
   */
  envelope?: boolean;
  statusFromData?: (data: unknown) => number;
  /**
   * A field of the success's `data` shown this once (a signing secret): an `Idempotency-Key` replay never keeps or
   * repeats it, and answers 409 `secret_shown_once` with the created resource's id instead.
   */
  oneTimeSecret?: string;
}

export type Authentication = 'none' | 'key';

export type Resolve<Input extends z.ZodObject, Payload = unknown> = (args: z.output<Input>, ctx: RequestContext, info: GraphQLResolveInfo) => Payload | Promise<Payload>;

/**
 * One operation of the service: the single source of truth from which the GraphQL root field, its payload type and
 * the document the bridges execute, the REST route, the MCP tool, the OpenAPI operation, scopes, weights and prices
 * derive. An operation is this entry plus its resolver.
 */
export interface OperationInput<Input extends z.ZodObject = z.ZodObject, Output extends z.ZodType = z.ZodType, Result extends ResultMapping | undefined = ResultMapping | undefined> {
  operationId: string;
  description: string;
  graphql: {
    kind: 'query' | 'mutation';
    field: string;
    /** A hand-written document, only where it says something the generated one cannot. */
    document?: string;
    /**
     * Asked for under one response key at most per GraphQL operation (schema/pipeline/document-limits.ts): a field
     * that needs no key, which no rate limit counts, and that costs a round trip, must not be multiplied by aliases.
     */
    oncePerOperation?: true;
  };
  rest: RestBinding;
  /** MCP tool name; every operation has one. */
  tool: string;
  authentication: Authentication;
  /** Any one of these scopes grants the call (implication applies). Empty: any valid key. */
  scopes: readonly Scope[];
  /**
   * Platforms whose content the call reads, reports or sends (a monitor's sources, the results it holds, a delivery's
   * payload): the key needs `read:<platform>` for each, beside `scopes`. Given the validated arguments.
   */
  contentPlatforms?: (args: Record<string, unknown>, ctx: RequestContext) => readonly string[] | Promise<readonly string[]>;
  billing: BillingInput;
  /** Arguments, with the spec's bounds, patterns and defaults. */
  input: Input;
  /** The `data` of a success. */
  output: Output;
  /** How the GraphQL payload wraps `data` and the members lifted into `meta`; none: the payload is `data`. */
  result?: Result;
  /** The root field's resolver: platform-native objects in the payload's shape (checked against it). */
  resolve: Resolve<Input, PayloadOf<Output, Result>>;
  /** Paginated operations take a cursor and report `meta.nextCursor`. */
  paginated?: boolean;
  /** OpenAPI tag. */
  tag: string;
  /** Error statuses the operation documents; default: the read-error set R (400 401 402 403 404 429 500 503). */
  errorStatuses?: readonly number[];
  /**
   * An input that succeeds against the simulated platforms' default world: shown as the OpenAPI example and
   * used by the tests that walk the catalogue over GraphQL, REST and MCP.
   */
  example: z.input<Input>;
}

export interface OperationSpec<Input extends z.ZodObject = z.ZodObject> extends Omit<OperationInput<Input>, 'resolve' | 'result'> {
  result?: ResultMapping;
  resolve: Resolve<Input>;
  graphql: OperationInput['graphql'] & { document: string };
  billing: Billing;
  /** The GraphQL payload of the root field: `output`, or the wrapper `result` describes. */
  payload: z.ZodType;
}

/** Completes an entry with what derives from it: the payload shape, the executed document, the published units. */
export function defineOperation<Input extends z.ZodObject, Output extends z.ZodType, const Result extends ResultMapping | undefined = undefined>(
  spec: OperationInput<Input, Output, Result>,
): OperationSpec<Input> {
  const payload = payloadOf(spec.output, spec.result);
  const units = [...new Set([...(spec.billing.lookup ? [spec.billing.lookup.unit] : []), ...(Object.keys(spec.billing.returns ?? {}) as BillingUnit[])])];
  const { chargedLater } = spec.billing;
  return {
    ...spec,
    description: chargedLater ? `${spec.description} The call itself is free; ${chargedLater}.` : spec.description,
    resolve: spec.resolve as Resolve<Input>,
    payload,
    billing: { ...spec.billing, units },
    graphql: { ...spec.graphql, document: spec.graphql.document ?? documentFor(spec.operationId, spec.graphql, spec.input, payload) },
  };
}

/** Whether a call takes a credit ceiling and a dry run: a billed one, or a free one that queues a charged run. */
export function takesCallOptions(op: { billing: BillingInput }): boolean {
  return op.billing.minimumCredits > 0 || op.billing.queuedRun !== undefined;
}

export const FREE: BillingInput = { minimumCredits: 0, rateLimitWeight: 1 };
