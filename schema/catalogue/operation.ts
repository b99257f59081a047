import type { z } from 'zod';

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
export const UNIT_PRICES = {
  forum_post: 3,
  forum_comment: 3,
  subforum: 1,
  post: 1,
  profile: 2,
  user: 1,
  list: 2,
  space: 1,
} as const;

export type BillingUnit = keyof typeof UNIT_PRICES;

export interface Billing {
  /** Charged on every successful call, even when nothing matched. 0 for free operations. */
  minimumCredits: number;
  /** Units this operation may return; empty for free operations. */
  units: readonly BillingUnit[];
  /** Requests counted against the per-minute rate limit. */
  rateLimitWeight: number;
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
}

/** How the GraphQL payload of the root field maps to the REST/MCP `{data, meta}` envelope. */
export interface ResultMapping {
  /** When set, `data` is this member of the payload; otherwise the whole payload minus the meta members. */
  dataField?: string;
  /** Payload members lifted into `meta`; a null value is omitted from `meta` unless listed in `metaAlways`. */
  meta?: readonly string[];
  /** Meta members that are always present, even when null (e.g. `nextCursor`). */
  metaAlways?: readonly string[];
}

export type Authentication = 'none' | 'key';

/**
 * One operation of the service: the single source of truth from which the GraphQL root field's arguments
 * and validation, the REST route, the MCP tool, the OpenAPI operation, scopes, weights and prices derive.
 */
export interface OperationSpec<Input extends z.ZodObject = z.ZodObject> {
  operationId: string;
  description: string;
  graphql: {
    kind: 'query' | 'mutation';
    field: string;
    /** Hand-written document executed by the bridges. It may spread the generated `…<Type>Fields` fragments. */
    document: string;
  };
  rest: RestBinding;
  /** MCP tool name; every operation has one. */
  tool: string;
  authentication: Authentication;
  /** Any one of these scopes grants the call (implication applies). Empty: any valid key. */
  scopes: readonly Scope[];
  billing: Billing;
  /** Arguments, with the spec's bounds, patterns and defaults. */
  input: Input;
  /** The `data` of a success, for the OpenAPI document. */
  output: z.ZodType;
  result?: ResultMapping;
  /** Paginated operations take a cursor and report `meta.nextCursor`. */
  paginated?: boolean;
  /** OpenAPI tag. */
  tag: string;
  /** Error statuses the operation documents; default: the read-error set R (400 401 402 403 404 429 500 503). */
  errorStatuses?: readonly number[];
  /**
   * An input that succeeds against the simulated platforms' default world: shown as the OpenAPI example and
   * used by the test that walks the catalogue over GraphQL, REST and MCP.
   */
  example: z.input<Input>;
}

export function defineOperation<Input extends z.ZodObject>(spec: OperationSpec<Input>): OperationSpec<Input> {
  return spec;
}

export const FREE: Billing = { minimumCredits: 0, units: [], rateLimitWeight: 1 };
