import { getArgumentValues, getOperationAST, getVariableValues, GraphQLError, type DocumentNode, type ExecutionResult, type FieldNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { OperationSpec } from '../catalogue/operation.ts';
import type { RunHold } from '../../adapters/monitors/monitor-runner.ts';
import { priceOf } from '../catalogue/operation.ts';
import { CreditsRefusal } from '../../adapters/billing/credits-refusal.ts';
import { ServiceError } from '../../core/error-catalogue.ts';
import { grants, SCOPES } from '../../adapters/identity/scopes.ts';
import { authenticate } from './authenticate.ts';
import { remainingAfterRefusal, setCreditHeaders } from './credit-headers.ts';
import { toCatalogueError } from './error-mapping.ts';
import { rootFieldsOf, type RootField } from './root-fields.ts';
import { pricedFieldsOf, refuseAboveCeiling, worstCaseCredits, type WorstCase } from './worst-case-credits.ts';
import { validationFailure } from '../builder.ts';
import { ARGUMENT_SCHEMA, operationArgumentSchema } from '../operation-fields.ts';
import type { z } from 'zod';
import type { Admission } from '../../core/service-deps.ts';
import type { Principal, RequestContext } from '../../core/request-context.ts';
import { checkCallOptions, type CallOptions, type SentCallOptions } from '../../core/call-options.ts';
import { provenanceOf } from '../../core/provenance.ts';
import { readCursor } from '../../core/cursor.ts';
import { ceilingRefusal, estimateOf, smallerPage, type SmallerPage } from './credit-ceiling.ts';
import { walkBudget, type WalkBudget } from './walk-budget.ts';

interface PlannedField extends RootField {
  op: OperationSpec;
}

/** A root field's arguments as GraphQL coerces them; undefined when they do not coerce (execution reports that). */
function argumentsOf(schema: GraphQLSchema, kind: 'query' | 'mutation', node: FieldNode, variables: Record<string, unknown>): Record<string, unknown> | undefined {
  const field = (kind === 'query' ? schema.getQueryType() : schema.getMutationType())?.getFields()[node.name.value];
  if (!field) return undefined;
  try {
    return getArgumentValues(field, node, variables);
  } catch {
    return undefined;
  }
}

/** The root field's arguments as its operation reads them; undefined when they do not coerce (execution reports that). */
function validateArguments(schema: GraphQLSchema, kind: 'query' | 'mutation', { op, node }: PlannedField, variables: Record<string, unknown>): Record<string, unknown> | undefined {
  if (Object.keys(op.input.shape).length === 0) return {};
  const coerced = argumentsOf(schema, kind, node, variables);
  if (!coerced) return undefined;
  const parsed = operationArgumentSchema(op).safeParse(coerced);
  if (!parsed.success) throw validationFailure(parsed.error.issues);
  return parsed.data as Record<string, unknown>;
}

/**
 * A dry run refuses a cursor the call would refuse (malformed, altered, another request's: 400 `invalid_cursor`),
 * read as the field's page reads it (resolvers/paging.ts): reading it is pure, so the dry run answers as the call would.
 */
function checkCursor(ctx: RequestContext, kind: 'query' | 'mutation', { fieldName }: PlannedField, args: Record<string, unknown> | undefined): void {
  if (args?.cursor === undefined || args.cursor === null) return;
  readCursor(ctx, `${kind === 'query' ? 'Query' : 'Mutation'}.${fieldName}`, args);
}

/**
 * The arguments of every walked edge, checked as a root field's are, so a bad `limit` below the root is a 400 before
 * anything runs rather than a null edge in a charged answer. Only /graphql documents walk edges: the catalogue's
 * documents that REST and MCP run select none.
 */
function validateEdgeArguments(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>, operationName: string | null | undefined): void {
  for (const { path, field, node } of pricedFieldsOf(schema, document, variables, operationName)) {
    const argumentSchema = field.extensions[ARGUMENT_SCHEMA] as z.ZodType | undefined;
    // Root fields (a path without a dot) were checked against their operation.
    if (!argumentSchema || !path.includes('.')) continue;
    let coerced: Record<string, unknown>;
    try {
      coerced = getArgumentValues(field, node, variables);
    } catch {
      // Arguments that do not coerce: execution reports them.
      continue;
    }
    const parsed = argumentSchema.safeParse(coerced);
    if (!parsed.success) throw validationFailure(parsed.error.issues, path);
  }
}

/**
 * The variables as execution will see them (the operation's defaults applied, values coerced), so that a default
 * cannot get around the scope check, the worst case, the ceiling or argument validation. REST and MCP execute the
 * catalogue's own documents, which declare no defaults (test/unit/catalogue-documents.test.ts), with values their
 * bridge already validated: their variables are read as sent. Variables that do not coerce are left as sent too:
 * execution refuses them (400, nothing charged).
 */
function variablesOf(ctx: RequestContext, schema: GraphQLSchema, operation: OperationDefinitionNode, sent: Record<string, unknown>): Record<string, unknown> {
  if (ctx.surface !== 'graphql' || !operation.variableDefinitions?.length) return sent;
  return getVariableValues(schema, operation.variableDefinitions, sent).coerced ?? sent;
}

/**
 * `maxCredits` and `dryRun` as sent: headers on every surface, MCP tool arguments (the bridge adds them on the
 * context), and the GraphQL request's `extensions`; the strictest of them applies (checkCallOptions).
 */
function sentOptionsOf(ctx: RequestContext): SentCallOptions {
  const extensions = (ctx as { params?: { extensions?: Record<string, unknown> } }).params?.extensions ?? {};
  const sent = { maxCredits: [...(ctx.callOptions?.maxCredits ?? [])], dryRun: [...(ctx.callOptions?.dryRun ?? [])] };
  if (extensions.maxCredits !== undefined) sent.maxCredits.push({ value: extensions.maxCredits, field: 'extensions.maxCredits' });
  if (extensions.dryRun !== undefined) sent.dryRun.push({ value: extensions.dryRun, field: 'extensions.dryRun' });
  return sent;
}

/** Whether the key's scopes grant the operation (any one of its scopes, implication applied). */
export function scopesGrant(principal: Principal, op: OperationSpec): boolean {
  return op.scopes.length === 0 || op.scopes.some((scope) => grants(principal.scopes, scope));
}

/** 403 naming the scope a call lacks; `why` says what needed it beyond the operation. */
export function insufficientScope(op: OperationSpec, required: readonly string[], why = ''): ServiceError {
  return new ServiceError('insufficient_scope', {
    message: `This key lacks the scope ${required.join(' or ')} needed by ${op.operationId}${why}.`,
    // Every scope that grants the call, implied ones included (`read:social` for a platform, `*:write` for `*:read`).
    details: { requiredScope: required[0], acceptedScopes: SCOPES.filter((held) => required.some((scope) => grants([held], scope))), operationId: op.operationId },
  });
}

function checkScopes(principal: Principal, fields: PlannedField[]): void {
  for (const { op } of fields) {
    if (!scopesGrant(principal, op)) throw insufficientScope(op, op.scopes);
  }
}

/**
 * Platform content is granted by the platform's read scope alone (spec, Authentication 6), whichever operation shows
 * or sends it: a monitor or webhook scope never stands in for `read:<platform>`.
 */
async function checkContentPlatforms(ctx: RequestContext, principal: Principal, op: OperationSpec, args: Record<string, unknown>): Promise<void> {
  if (!op.contentPlatforms) return;
  for (const platform of await op.contentPlatforms(args, ctx)) {
    const scope = `read:${platform}`;
    if (!grants(principal.scopes, scope)) throw insufficientScope(op, [scope], ` for ${platform} content`);
  }
}

/** What execution is asked to run: the policy may shrink a page by changing `variableValues`. */
export interface PolicyArgs {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null;
  variableValues?: Record<string, unknown> | null;
  contextValue: unknown;
}

/** The policy's verdict before execution: an answer instead of executing, or the step that settles what ran. */
export type PolicyStep = { answer: ExecutionResult } | { settle: (result: ExecutionResult) => Promise<ExecutionResult> } | undefined;

export type OperationPolicy = (args: PolicyArgs) => Promise<PolicyStep>;

/**
 * The one pipeline every call passes through, whichever surface it came from: authentication, scopes,
 * rate limit, credit admission before execution; error mapping and credit settlement after it. `/graphql` runs it
 * inside yoga's plugin chain (useOperationPolicy); the REST and MCP bridges run it around their compiled documents.
 */
export function operationPolicy(byField: (kind: 'query' | 'mutation', field: string) => OperationSpec | undefined): OperationPolicy {
  return async (args) => {
    const ctx = args.contextValue as unknown as RequestContext;
    const operation = getOperationAST(args.document, args.operationName);
    // Refused rather than let through unchecked: the executor could resolve the name otherwise (graphql-jit reads an
    // empty name as "the only operation"; security review h, G-L2).
    if (!operation) return { answer: { errors: [toCatalogueError(new ServiceError('invalid_request', { message: 'Could not determine what operation to execute: name one of the document, by operationName.', details: { field: 'operationName' } }))] } };
    if (operation.operation === 'subscription') return undefined;
    const variables = variablesOf(ctx, args.schema, operation, (args.variableValues ?? {}) as Record<string, unknown>);
    const fields: PlannedField[] = [];
    for (const root of rootFieldsOf(operation, args.document, variables)) {
      const op = byField(operation.operation, root.fieldName);
      if (op) fields.push({ ...root, op });
    }
    if (fields.length) ctx.operation = fields.map(({ op }) => op.operationId).join(',');
    // Planned only for a request with a billed or key-authenticated field: /health and introspection skip it.
    let worstCase: WorstCase | undefined;
    let admission: Admission | undefined;
    let budget: WalkBudget | undefined;
    let options: CallOptions = { dryRun: false };
    let partial: SmallerPage | undefined;
    // The runs the call queues, when a ceiling or a dry run asks what it costs: counted in its worst case, not its hold.
    let runs: RunHold = { minimumCredits: 0, reserveCredits: 0 };
    const withRuns = (credits: number) => credits + runs.reserveCredits;
    try {
      if (fields.some(({ op }) => op.authentication === 'key')) {
        worstCase = worstCaseCredits(args.schema, args.document, variables, args.operationName);
        const estimate = estimateOf(fields, worstCase.credits);
        options = checkCallOptions(sentOptionsOf(ctx));
        const principal = await authenticate(ctx);
        checkScopes(principal, fields);
        // A dry run runs nothing, so it weighs 1 whatever it estimates.
        await ctx.deps.rateLimits.consume(principal, options.dryRun ? 1 : estimate.rateLimitWeight);
        const kind = operation.operation === 'mutation' ? 'mutation' : 'query';
        // Checked before admission: a malformed request is a 400 to fix, not a 402, whatever the account holds.
        const validated: (Record<string, unknown> | undefined)[] = [];
        for (const field of fields) {
          const parsed = validateArguments(args.schema, kind, field, variables);
          if (parsed) await checkContentPlatforms(ctx, principal, field.op, parsed);
          validated.push(parsed);
        }
        if (ctx.surface === 'graphql') validateEdgeArguments(args.schema, args.document, variables, args.operationName);
        if (options.maxCredits || options.dryRun) runs = await queuedRunsOf(ctx, fields, validated);
        if (options.maxCredits && withRuns(worstCase.credits) > options.maxCredits.credits) {
          // REST and MCP run one operation whose arguments are all variables: a smaller page may fit the ceiling.
          const at = (limit: number) => withRuns(worstCaseCredits(args.schema, args.document, { ...variables, limit }, args.operationName).credits);
          const only = fields.length === 1 ? { op: fields[0].op, args: argumentsOf(args.schema, kind, fields[0].node, variables) ?? {} } : undefined;
          partial = ctx.surface !== 'graphql' && only ? smallerPage(only, options.maxCredits.credits, at) : undefined;
          if (!partial) throw ceilingRefusal(options.maxCredits, withRuns(worstCase.credits), 'worst_case');
          args.variableValues = { ...variables, limit: partial.limit };
          ctx.limitAsked = partial.limitAsked;
          worstCase = worstCaseCredits(args.schema, args.document, args.variableValues, args.operationName);
        }
        refuseAboveCeiling(worstCase);
        if (options.dryRun) {
          fields.forEach((field, i) => checkCursor(ctx, kind, field, validated[i]));
          const remaining = await ctx.deps.billing.remaining(principal);
          setCreditHeaders(ctx, 0, remaining);
          const estimated = {
            ...estimate,
            minimumCredits: estimate.minimumCredits + runs.minimumCredits,
            worstCaseCredits: withRuns(worstCase.credits),
            ...(partial ? { limit: partial.limit } : {}),
          };
          return { answer: { data: null, extensions: { dryRun: true, estimate: estimated, ...partialOf(partial, options), credits: { charged: 0, remaining, worstCase: withRuns(worstCase.credits) } } } };
        }
        const { minimumCredits } = estimate;
        // The hold is the request's worst case: its root fields and every edge it walks at their largest results.
        if (minimumCredits > 0) admission = await ctx.deps.billing.admit(principal, { minimumCredits, reserveCredits: worstCase.credits });
        // An account that could not hold the worst case: its walks pay as they go (walk-budget.ts).
        if (admission && admission.reserved < worstCase.credits) {
          const held = principal;
          budget = walkBudget({
            held: () => admission!.reserved,
            soFar: () => priceOfFields(ctx, fields),
            grow: async (extra) => {
              admission = await ctx.deps.billing.extend(held, admission!, extra);
            },
          });
          ctx.creditGuard = budget.reserve;
        }
      }
    } catch (error) {
      // Refused before execution: nothing charged, and the balance reported as on any call of a known key.
      const remaining = await remainingAfterRefusal(ctx, error);
      setCreditHeaders(ctx, 0, remaining);
      return { answer: { errors: [toCatalogueError(error)], extensions: { credits: { charged: 0, remaining, worstCase: worstCase && withRuns(worstCase.credits) } } } };
    }
    return {
      async settle(result) {
        const errors = result.errors?.map(toCatalogueError);
        const failed = failedRootFields(ctx, result, errors, fields);
        const served = failed.has('*') ? [] : fields.filter(({ responseKey }) => !failed.has(responseKey));
        const priced = served.map((field) => ({ op: field.op, credits: priceOfField(ctx, field) }));
        const credits = priced.reduce((sum, field) => sum + field.credits, 0);
        const principal = ctx.principal;
        let charged = 0;
        let remaining: number | undefined;
        let outcome: ExecutionResult = errors ? { ...result, errors } : result;
        const walkRefusal = budget?.refusal();
        if (principal && admission && walkRefusal) {
          // A walk refused on the way: the call ends refused whatever the account holds by now, nothing charged.
          ({ remaining } = await ctx.deps.billing.release(principal, admission));
          outcome = { errors: [toCatalogueError(walkRefusal.error)] };
        } else if (principal && admission && options.maxCredits && credits > options.maxCredits.credits) {
          // Never charged above the client's ceiling, even by a result that outgrew its estimate: withheld, nothing charged.
          ({ remaining } = await ctx.deps.billing.release(principal, admission));
          outcome = { errors: [toCatalogueError(ceilingRefusal(options.maxCredits, credits, 'price'))] };
        } else if (principal && admission) {
          const settled = await settleExactly(ctx, principal, admission, credits);
          ({ charged, remaining } = settled);
          if (settled.refusal) outcome = { errors: [toCatalogueError(settled.refusal)] };
          else recordUsage(ctx, principal, priced, charged);
        } else if (principal) {
          remaining = await ctx.deps.billing.remaining(principal);
        }
        if (principal) setCreditHeaders(ctx, charged, remaining);
        if (ctx.surface === 'graphql') outcome = withPartialDataStatus(outcome);
        const provenance = provenanceOf(ctx);
        const flags = outcome.errors?.length && !outcome.data ? {} : { ...partialOf(partial, options), ...(provenance.length ? { provenance } : {}) };
        return principal ? { ...outcome, extensions: { ...outcome.extensions, ...flags, credits: { charged, remaining, worstCase: worstCase && withRuns(worstCase.credits) } } } : outcome;
      },
    };
  };
}

/**
 * The holds of the runs the call's root fields queue, added up (docs/monitors.md, Money): a free call that queues a run
 * costs what the run will, so its estimate and its ceiling count the hold the run takes when it executes.
 */
async function queuedRunsOf(ctx: RequestContext, fields: readonly PlannedField[], validated: readonly (Record<string, unknown> | undefined)[]): Promise<RunHold> {
  const runs = { minimumCredits: 0, reserveCredits: 0 };
  for (const [i, { op }] of fields.entries()) {
    const args = validated[i];
    const hold = args && op.billing.queuedRun ? await op.billing.queuedRun(args, ctx) : undefined;
    runs.minimumCredits += hold?.minimumCredits ?? 0;
    runs.reserveCredits += hold?.reserveCredits ?? 0;
  }
  return runs;
}

/** The policy in yoga's plugin chain, for `/graphql`. */
export function useOperationPolicy(policy: OperationPolicy): Plugin {
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const step = await policy(args as PolicyArgs);
      if (!step) return;
      if ('answer' in step) return setResultAndStopExecution(step.answer);
      return {
        async onExecuteDone({ result, setResult }) {
          if (isSingleResult(result)) setResult(await step.settle(result));
        },
      };
    },
  };
}

/** What a root field's result costs as far as it has been metered: its minimum and the units returned under it. */
function priceOfField(ctx: RequestContext, { responseKey, op }: PlannedField): number {
  return op.billing.minimumCredits + (op.billing.minimumCredits > 0 ? priceOf(ctx.meter.unitsOf(responseKey)) : 0);
}

function priceOfFields(ctx: RequestContext, fields: readonly PlannedField[]): number {
  return fields.reduce((sum, field) => sum + priceOfField(ctx, field), 0);
}

/**
 * Charges exactly what the call returned, or nothing. The hold taken on admission may be smaller than the
 * price (an account near empty holds only what it has; a GraphQL walk may return more than its root
 * operation's largest result): the hold is then grown by the difference, atomically under the admission lock.
 * If the account cannot cover it, the call is refused as at admission (402, or 429 credits_held) and its result
 * is withheld, so no call is ever served below its price and the balance never goes negative. A call is settled
 * once, with one charge, so a failure can never leave it half charged.
 */
async function settleExactly(
  ctx: RequestContext,
  principal: Principal,
  admission: Admission,
  credits: number,
): Promise<{ charged: number; remaining: number; refusal?: unknown }> {
  const billing = ctx.deps.billing;
  if (credits === 0) return { charged: 0, ...(await billing.release(principal, admission)) };
  let hold = admission;
  if (credits > hold.reserved) {
    try {
      hold = await billing.extend(principal, hold, credits - hold.reserved);
    } catch (refusal) {
      const { remaining } = await billing.release(principal, hold);
      if (!(refusal instanceof CreditsRefusal)) throw refusal;
      return { charged: 0, remaining, refusal };
    }
  }
  return billing.settle(principal, hold, credits);
}

/** The flag of a page served smaller than asked to keep within `maxCredits`. */
function partialOf(partial: SmallerPage | undefined, options: CallOptions): { partial?: Record<string, unknown> } {
  if (!partial || !options.maxCredits) return {};
  return { partial: { reason: 'max_credits', maxCredits: options.maxCredits.credits, limit: partial.limit, limitAsked: partial.limitAsked } };
}

/**
 * Books the call's charge in the usage ledger, one row per operation (aliases of one operation added up). The rows
 * add up to what was charged: an expired hold may have been charged less than the price, taken from the last rows.
 */
function recordUsage(ctx: RequestContext, principal: Principal, priced: readonly { op: OperationSpec; credits: number }[], charged: number): void {
  const byOperation = new Map<string, number>();
  let left = charged;
  for (const { op, credits } of priced) {
    const share = Math.min(credits, left);
    left -= share;
    if (share > 0) byOperation.set(op.operationId, (byOperation.get(op.operationId) ?? 0) + share);
  }
  const chargedAt = ctx.now();
  ctx.deps.usage.record(
    [...byOperation].map(([operationId, credits]) => ({ workspaceId: principal.workspaceId, requestId: ctx.requestId, operationId, surface: ctx.surface, credits, chargedAt })),
  );
}

/**
 * Root fields that were not served, so cost nothing ('*' when the whole call failed). On GraphQL a root field
 * whose data came back despite an error below it was served, and is charged for what its resolvers returned;
 * REST and MCP answer any error with the error alone, so there every errored root field was not served.
 */
function failedRootFields(ctx: RequestContext, result: ExecutionResult, errors: readonly { path?: readonly (string | number)[] }[] | undefined, fields: readonly PlannedField[]): Set<string> {
  const failed = new Set<string>();
  const data = result.data as Record<string, unknown> | null | undefined;
  // A planned field execution never reached (no key in the data) returned nothing, and costs nothing.
  if (data) for (const { responseKey } of fields) if (data[responseKey] === undefined) failed.add(responseKey);
  for (const error of errors ?? []) {
    const key = error.path?.[0];
    if (key === undefined) failed.add('*');
    else if (ctx.surface !== 'graphql' || data?.[key] === null || data?.[key] === undefined) failed.add(String(key));
  }
  return failed;
}

/**
 * A GraphQL response that carries data for some root field is a success with errors beside it (HTTP 200), not a
 * failure: the errors keep their codes but no longer set the HTTP status, so clients do not drop the data.
 */
function withPartialDataStatus(result: ExecutionResult): ExecutionResult {
  const data = result.data as Record<string, unknown> | null | undefined;
  if (!result.errors?.length || !data || !Object.values(data).some((value) => value !== null && value !== undefined)) return result;
  return {
    ...result,
    errors: result.errors.map((error) => {
      const { http: _http, ...extensions } = (error.extensions ?? {}) as Record<string, unknown>;
      return new GraphQLError(error.message, { nodes: error.nodes, path: error.path, extensions });
    }),
  };
}

function isSingleResult(result: unknown): result is ExecutionResult {
  return typeof result === 'object' && result !== null && !(Symbol.asyncIterator in result);
}

