import { z } from 'zod';
import type { OperationSpec } from '../schema/catalogue/operation.ts';
import { takesCallOptions, UNIT_PRICES } from '../schema/catalogue/operation.ts';
import { ERROR_CATALOGUE } from '../core/error-catalogue.ts';
import { unwrap } from '../schema/zod-shape.ts';

type JsonSchema = Record<string, unknown>;

/** Named shapes (`.meta({ id })`) shared by several operations, lifted into `components.schemas`. */
type Components = Record<string, JsonSchema>;

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string' ? inner.replace('#/$defs/', '#/components/schemas/') : rewriteRefs(inner),
    ]),
  );
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output', components: Components): JsonSchema {
  const { $schema: _ignored, $defs, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  for (const [name, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
    const { id: _id, ...clean } = definition;
    components[name] ??= rewriteRefs(clean) as JsonSchema;
  }
  const { id: _id, ...body } = rest;
  return rewriteRefs(body) as JsonSchema;
}

const ERROR_STATUSES: Record<string, string> = {
  '400': 'The request failed validation; `details` names the field.',
  '401': 'The key is missing, malformed, unknown, expired or revoked.',
  '402': 'Out of credit, or spending is paused (billed operations).',
  '403': 'The key lacks a required scope; `details.requiredScope` names it.',
  '404': 'No such resource, or it is not public.',
  '409': 'The request conflicts with the current state: a tier ceiling (`details.limit`), a paused or archived monitor, a disabled webhook; or, retryable after `Retry-After`, a monitor\'s schedule held by another change (`details.reason` `schedule_busy`).',
  '413': 'The body is over 1 MiB.',
  '415': 'A body sent without `Content-Type: application/json`.',
  '429': 'Rate limit exhausted (see `Retry-After`), or credits held by calls in flight (`details.reason` = `credits_held`).',
  '500': 'Unexpected error; retry with backoff.',
  '503': 'A source was unreachable (`upstream_unavailable`, `upstream_invalid`), or the database or job store is (`not_ready`); retry with backoff.',
};

/**
 * A `meta` member as published: a member omitted when null is published as its non-null type; one always present
 * may be null.
 */
function metaMemberSchema(shape: z.ZodType, always: boolean, components: Components): JsonSchema {
  const { base, nullable, description } = unwrap(shape);
  const schema = jsonSchema(base, 'output', components);
  const type = nullable && always && typeof schema.type === 'string' ? { type: [schema.type, 'null'] } : {};
  return { ...schema, ...type, ...(description ? { description } : {}) };
}

const READ_ERRORS = [400, 401, 402, 403, 404, 429, 500, 503];

/** Headers every operation that costs credits takes (a billed one, or one that queues a run): the call's credit ceiling and dry run (docs/api-conventions.md). */
const CALL_OPTION_HEADERS: JsonSchema[] = [
  {
    name: 'x-max-credits',
    in: 'header',
    required: false,
    description: 'The most this call may be charged, with the run it queues for a monitor. A call whose worst case is higher is refused free (400, `details.field` = `x-max-credits`), or served as a smaller page where the operation takes a `limit` (`meta.partial` says so).',
    schema: { type: 'integer', minimum: 0, maximum: 1_000_000_000 },
  },
  {
    name: 'x-dry-run',
    in: 'header',
    required: false,
    description: '`true`: run nothing and charge nothing (rate-limit weight 1); `data` is null and `meta.estimate` says what the call would cost.',
    schema: { type: 'boolean' },
  },
];

/** `meta` members the pipeline adds to the success of an operation that costs credits. */
const CALL_META: Record<string, JsonSchema> = {
  dryRun: { type: 'boolean', const: true, description: 'Present on a dry run: nothing ran, nothing was charged.' },
  estimate: {
    type: 'object',
    description: 'On a dry run: what the call would cost and weigh.',
    required: ['minimumCredits', 'worstCaseCredits', 'rateLimitWeight'],
    properties: {
      minimumCredits: { type: 'integer', minimum: 0, description: 'Charged even when nothing matches (with the run it queues, for a monitor).' },
      worstCaseCredits: { type: 'integer', minimum: 0, description: 'The most the call can be charged (the credits held while it runs), with the run it queues for a monitor (the hold that run takes).' },
      rateLimitWeight: { type: 'integer', minimum: 1, description: 'What the real call counts against the per-minute limit (a dry run counts 1).' },
      limit: { type: 'integer', minimum: 1, description: 'The smaller page size the call would be served with under `x-max-credits`.' },
    },
  },
  provenance: {
    type: 'array',
    description: 'Where the items of `data` came from and when: one entry per platform the call read. Each item of `data` (and each nested item) comes from the entry of its own platform. Absent on a dry run and when nothing was read.',
    items: {
      type: 'object',
      required: ['platform', 'upstream', 'fetchedAt'],
      properties: {
        platform: { type: 'string', enum: ['forum', 'microblog'] },
        upstream: { type: 'string', description: "The upstream that answered: the configured platform host, or `simulated` for the service's simulated platform." },
        fetchedAt: { type: 'string', format: 'date-time', description: "When that upstream first answered this call; the call's later answers are at most its duration newer." },
      },
    },
  },
  partial: {
    type: 'object',
    description: 'Present when the page was served smaller than asked so that its worst case fits `x-max-credits`; `nextCursor` continues the request as sent.',
    required: ['reason', 'maxCredits', 'limit', 'limitAsked'],
    properties: {
      reason: { type: 'string', enum: ['max_credits'] },
      maxCredits: { type: 'integer', minimum: 0 },
      limit: { type: 'integer', minimum: 1, description: 'Items asked of the platform for this page.' },
      limitAsked: { type: 'integer', minimum: 1, description: 'The `limit` of the request.' },
    },
  },
};

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function operationObject(op: OperationSpec, components: Components): JsonSchema {
  const input = jsonSchema(op.input, 'input', components) as { properties?: Record<string, JsonSchema>; required?: string[] };
  const properties = input.properties ?? {};
  const required = new Set(input.required ?? []);
  const pathParams = [...op.rest.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]);
  const inQuery = op.rest.method === 'GET' || op.rest.method === 'DELETE';
  const parameters = Object.entries(properties)
    .filter(([name]) => pathParams.includes(name) || inQuery)
    .map(([name, schema]) => ({
      name,
      in: pathParams.includes(name) ? 'path' : 'query',
      required: pathParams.includes(name) || required.has(name),
      ...(schema.description ? { description: schema.description } : {}),
      schema,
      ...(name in (op.example as Record<string, unknown>) ? { example: (op.example as Record<string, unknown>)[name] } : {}),
    }));
  const costs = takesCallOptions(op);
  if (costs) parameters.push(...(CALL_OPTION_HEADERS as typeof parameters));
  const bodyProperties = Object.fromEntries(Object.entries(properties).filter(([name]) => !pathParams.includes(name)));
  const envelope = op.rest.envelope !== false;
  const meta: JsonSchema = {
    type: 'object',
    properties: {
      requestId: { type: 'string' },
      ...Object.fromEntries(
        Object.entries(op.result?.meta ?? {}).map(([member, shape]) => [
          member,
          metaMemberSchema(shape, op.result?.metaAlways?.includes(member) ?? false, components),
        ]),
      ),
      ...(costs ? CALL_META : {}),
    },
    required: ['requestId', ...(op.result?.metaAlways ?? [])],
  };
  const output = jsonSchema(op.output, 'output', components);
  // A dry run answers data null.
  const data = costs ? { anyOf: [output, { type: 'null' }] } : output;
  const successStatus = String(op.rest.successStatus ?? 200);
  const responses: Record<string, JsonSchema> = {
    [successStatus]: {
      description: 'Success.',
      content: {
        'application/json': {
          schema: envelope ? { type: 'object', properties: { data, meta }, required: ['data', 'meta'] } : data,
        },
      },
    },
  };
  if (op.rest.statusFromData) {
    responses['503'] = { description: 'A required dependency is unavailable.', content: { 'application/json': { schema: data } } };
  }
  if (op.authentication === 'none') {
    responses['405'] = { description: 'Wrong method; see `Allow`.', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } };
  }
  const takesBody = !inQuery && Object.keys(bodyProperties).length > 0;
  if (op.authentication === 'key') {
    // The listener refuses a body it cannot read before any operation runs; outside the spec's per-operation sets,
    // but generated clients should know them. Every key is checked against the database, so any keyed operation can
    // answer 503 `not_ready` while it is unreachable.
    for (const status of [...(op.errorStatuses ?? READ_ERRORS), 503, ...(takesBody ? [413, 415] : [])]) {
      const description = ERROR_STATUSES[String(status)];
      if (!description) throw new Error(`${op.operationId}: no description for error status ${status}`);
      responses[String(status)] ??= { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } };
    }
  }
  return {
    operationId: op.operationId,
    summary: op.description.split('. ')[0],
    description: op.description,
    tags: [op.tag],
    security: op.authentication === 'key' ? [{ bearerAuth: [] }] : [],
    ...(parameters.length ? { parameters } : {}),
    ...(takesBody
      ? {
          requestBody: {
            required: [...required].some((name) => !pathParams.includes(name)),
            content: {
              'application/json': {
                // Unknown members are refused (400 naming them), which generated clients should know.
                schema: { ...input, properties: bodyProperties, required: [...required].filter((name) => !pathParams.includes(name)), additionalProperties: false },
                example: Object.fromEntries(Object.entries(op.example as Record<string, unknown>).filter(([name]) => !pathParams.includes(name))),
              },
            },
          },
        }
      : {}),
    responses,
    'x-svc-billing': {
      minimumCredits: op.billing.minimumCredits,
      rateLimitWeight: op.billing.rateLimitWeight,
      units: op.billing.units.map((unit) => ({ unit, credits: UNIT_PRICES[unit] })),
    },
    'x-mcp-tool': op.tool,
    ...(op.scopes.length ? { 'x-svc-scopes': op.scopes } : {}),
  };
}

/** The OpenAPI 3.1.0 document, generated from the catalogue in the same loop that registers the routes. */
export function buildOpenApi(operations: readonly OperationSpec[], version: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const components: Components = {};
  for (const op of operations) {
    const path = openApiPath(op.rest.path);
    paths[path] ??= {};
    paths[path][op.rest.method.toLowerCase()] = operationObject(op, components);
  }
  const tags = [...new Set(operations.map((op) => op.tag))].map((name) => ({ name, description: `${name} operations.` }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Conversation Data Service',
      version,
      description: 'One API over public conversations on a forum platform and a microblog platform. Prepaid credits; every operation carries `x-svc-billing`.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '{base_url}', description: 'The service.', variables: { base_url: { default: 'http://localhost:8080', description: 'Base URL of the service.' } } }],
    security: [{ bearerAuth: [] }],
    tags,
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `svc_live_…` or `svc_test_…`.' } },
      schemas: {
        ...components,
        ErrorEnvelope: {
          type: 'object',
          required: ['error', 'meta'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message', 'retryable'],
              properties: {
                code: { type: 'string', enum: Object.keys(ERROR_CATALOGUE) },
                message: { type: 'string' },
                retryable: { type: 'boolean' },
                details: { type: 'object', additionalProperties: true },
              },
            },
            meta: { type: 'object', required: ['requestId'], properties: { requestId: { type: 'string' } } },
          },
        },
      },
    },
  };
}
