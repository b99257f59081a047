import { z } from 'zod';
import { DeletedShape } from '../../adapters/shapes/monitor-shapes.ts';
import { distinctList } from '../../adapters/shapes/distinct-list.ts';
import { CreatedWebhookShape, WEBHOOK_EVENT_TYPES, WebhookDeliveryDetailShape, WebhookDeliveryShape, WebhookShape } from '../../adapters/shapes/webhook-shapes.ts';
import * as webhooks from '../../resolvers/webhooks/webhooks.ts';
import { namingAChange } from './change-input.ts';
import { defineOperation, type BillingInput } from './operation.ts';

const READ = ['webhooks:read'] as const;
const WRITE = ['webhooks:write'] as const;
/** What every webhook operation shares: a key, free, weight 1 unless it says otherwise. */
const RESOURCE = { authentication: 'key', billing: { minimumCredits: 0, rateLimitWeight: 1 } as BillingInput, tag: 'Webhooks' } as const;
const ID = z.uuid().describe('Webhook id (uuid).');
const DELIVERY_ID = z.uuid().describe('Delivery id (uuid).');
const LIMIT = z.int().min(1).max(100).default(25).describe('Items to return, 1 to 100 (default 25), newest first.');
const NAME = z.string().trim().min(1, 'must not be blank').max(80).describe('1 to 80 characters, not all spaces; leading and trailing spaces are removed.');
const URL = z
  .url({ protocol: /^https?$/, error: (issue) => (issue.code === 'invalid_format' ? 'Expected an https URL (plain http only where the operator allows it), like https://example.com/hooks' : undefined) })
  .max(2048).describe('An https URL (plain http only where the operator allows it) of a permitted destination: no loopback, private, link-local, shared or metadata addresses.');
const EVENTS = distinctList(WEBHOOK_EVENT_TYPES).describe('Event types to receive, each at most once.');
const CRUD_ERRORS = [400, 401, 402, 403, 404, 429, 500] as const;
/** Stand for a webhook and a delivery of the caller's: the catalogue walk creates them and puts their ids here. */
export const EXAMPLE_WEBHOOK_ID = '00000000-0000-4000-8000-000000000001';
export const EXAMPLE_DELIVERY_ID = '00000000-0000-4000-8000-000000000002';
/**
 * Test deliveries one webhook may have waiting (pending or retrying) before a test is refused with 429: a test is the
 * one way an account adds deliveries at will, each retried up to nine times over three days.
 */
export const MAX_WAITING_TESTS = 10;
/**
 * Redeliveries of one delivery per window (an hour from the first redelivery after the last window closed), before
 * another is refused with 429: each is an attempt row and a request to the receiver, made at will.
 */
export const REDELIVERY_WINDOW = { maxRedeliveries: 5, windowSeconds: 3_600 } as const;

export const createWebhook = defineOperation({
  ...RESOURCE,
  operationId: 'createWebhook',
  description:
    'Creates a webhook: signed (Standard Webhooks) POSTs of the events it selects. The signing secret is in this response only. 400 naming `url` for a destination that is not permitted; 409 with `details.limit` at the tier’s webhook ceiling.',
  graphql: { kind: 'mutation', field: 'createWebhook' },
  rest: { method: 'POST', path: '/v1/webhooks', successStatus: 201, oneTimeSecret: 'secret' },
  tool: 'create_webhook',
  scopes: WRITE,
  input: z.object({ name: NAME, url: URL, events: EVENTS.default(['monitor.result.created']) }),
  output: CreatedWebhookShape,
  resolve: webhooks.createWebhook,
  errorStatuses: [400, 401, 402, 403, 409, 429, 500],
  example: { name: 'Results to our inbox', url: 'https://hooks.example.com/svc' },
});

export const updateWebhook = defineOperation({
  ...RESOURCE,
  operationId: 'updateWebhook',
  description:
    'Changes a webhook: `name`, `url`, `events`, `status`. `disabled` stops deliveries; `active` resumes them and clears `failureCount`. 404 when there is no such webhook in this account.',
  graphql: { kind: 'mutation', field: 'updateWebhook' },
  rest: { method: 'PATCH', path: '/v1/webhooks/:id' },
  tool: 'update_webhook',
  scopes: WRITE,
  contentPlatforms: webhooks.platformsOfWebhookChange,
  input: namingAChange(z.object({
    id: ID,
    name: NAME.optional(),
    url: URL.optional(),
    events: EVENTS.optional(),
    status: z.enum(['active', 'disabled']).optional().describe('`active` or `disabled`.'),
  })),
  output: WebhookShape,
  resolve: webhooks.updateWebhook,
  errorStatuses: CRUD_ERRORS,
  example: { id: EXAMPLE_WEBHOOK_ID, name: 'Renamed' },
});

export const listWebhooks = defineOperation({
  ...RESOURCE,
  operationId: 'listWebhooks',
  description: 'The account’s webhooks, newest first (secrets are never shown again). No cursor.',
  graphql: { kind: 'query', field: 'webhooks' },
  rest: { method: 'GET', path: '/v1/webhooks' },
  tool: 'list_webhooks',
  scopes: READ,
  input: z.object({ limit: LIMIT }),
  output: z.array(WebhookShape),
  resolve: webhooks.listWebhooks,
  errorStatuses: [400, 401, 402, 403, 429, 500],
  example: {},
});

export const getWebhook = defineOperation({
  ...RESOURCE,
  operationId: 'getWebhook',
  description: 'One webhook of the account. 404 when there is no such webhook in this account.',
  graphql: { kind: 'query', field: 'webhook' },
  rest: { method: 'GET', path: '/v1/webhooks/:id' },
  tool: 'get_webhook',
  scopes: READ,
  input: z.object({ id: ID }),
  output: WebhookShape,
  resolve: webhooks.getWebhook,
  errorStatuses: CRUD_ERRORS,
  example: { id: EXAMPLE_WEBHOOK_ID },
});

export const deleteWebhook = defineOperation({
  ...RESOURCE,
  operationId: 'deleteWebhook',
  description: 'Deletes a webhook and its deliveries; monitors that sent it results keep running with `webhookId` null. 404 when there is no such webhook in this account.',
  graphql: { kind: 'mutation', field: 'deleteWebhook' },
  rest: { method: 'DELETE', path: '/v1/webhooks/:id' },
  tool: 'delete_webhook',
  scopes: WRITE,
  input: z.object({ id: ID }),
  output: DeletedShape,
  resolve: webhooks.deleteWebhook,
  errorStatuses: CRUD_ERRORS,
  example: { id: EXAMPLE_WEBHOOK_ID },
});

export const testWebhook = defineOperation({
  ...RESOURCE,
  operationId: 'testWebhook',
  description:
    `Sends a signed \`webhook.test\` event now and answers with its delivery once the attempt is recorded (a failed attempt is retried like any other). 409 while the webhook is disabled; 429 (\`details.reason\` \`test_deliveries_waiting\`, with \`Retry-After\`) while ${MAX_WAITING_TESTS} of its test deliveries wait to be delivered.`,
  graphql: { kind: 'mutation', field: 'testWebhook' },
  rest: { method: 'POST', path: '/v1/webhooks/:id/test' },
  tool: 'test_webhook',
  scopes: WRITE,
  input: z.object({ id: ID }),
  output: WebhookDeliveryShape,
  resolve: webhooks.testWebhook,
  errorStatuses: [400, 401, 402, 403, 404, 409, 429, 500],
  example: { id: EXAMPLE_WEBHOOK_ID },
});

export const listWebhookDeliveries = defineOperation({
  ...RESOURCE,
  operationId: 'listWebhookDeliveries',
  description: 'Deliveries of the account’s webhooks, newest first, optionally of one webhook. Every attempt counts in `attempts`, including those about to be retried.',
  graphql: { kind: 'query', field: 'webhookDeliveries' },
  rest: { method: 'GET', path: '/v1/webhook-deliveries' },
  tool: 'list_webhook_deliveries',
  scopes: READ,
  input: z.object({ limit: LIMIT, webhookId: ID.optional().describe('Only this webhook’s deliveries.') }),
  output: z.array(WebhookDeliveryShape),
  resolve: webhooks.listWebhookDeliveries,
  errorStatuses: [400, 401, 402, 403, 429, 500],
  example: {},
});

export const getWebhookDelivery = defineOperation({
  ...RESOURCE,
  operationId: 'getWebhookDelivery',
  description: 'One delivery with every attempt made (status code, error, duration, the first 1 KiB of the answer). 404 when it is not this account’s.',
  graphql: { kind: 'query', field: 'webhookDelivery' },
  rest: { method: 'GET', path: '/v1/webhook-deliveries/:id' },
  tool: 'get_webhook_delivery',
  scopes: READ,
  input: z.object({ id: DELIVERY_ID }),
  output: WebhookDeliveryDetailShape,
  resolve: webhooks.getWebhookDelivery,
  errorStatuses: CRUD_ERRORS,
  example: { id: EXAMPLE_DELIVERY_ID },
});

export const redeliverWebhookDelivery = defineOperation({
  ...RESOURCE,
  operationId: 'redeliverWebhookDelivery',
  description:
    `Attempts a past delivery again now: the same event id and body, signed with the webhook’s current secret. Answers with the delivery once the attempt is recorded. 404 when it is not this account’s; 409 while the webhook is disabled; 429 (\`details.reason\` \`too_many_redeliveries\`, with \`Retry-After\`) once the delivery was redelivered ${REDELIVERY_WINDOW.maxRedeliveries} times within an hour.`,
  graphql: { kind: 'mutation', field: 'redeliverWebhookDelivery' },
  rest: { method: 'POST', path: '/v1/webhook-deliveries/:id/redeliver' },
  tool: 'redeliver_webhook_delivery',
  scopes: WRITE,
  contentPlatforms: webhooks.platformsOfDelivery,
  input: z.object({ id: DELIVERY_ID }),
  output: WebhookDeliveryShape,
  resolve: webhooks.redeliverWebhookDelivery,
  errorStatuses: [400, 401, 402, 403, 404, 409, 429, 500],
  example: { id: EXAMPLE_DELIVERY_ID },
});
