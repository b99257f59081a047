import { z } from 'zod';

/** The spec's Webhook and Webhook delivery. */

/** Event types a webhook can select; `webhook.test` is sent by the test operation whatever the selection. */
export const WEBHOOK_EVENT_TYPES = ['monitor.result.created', 'monitor.run.failed'] as const;
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'retrying', 'failed'] as const;

export const WebhookShape = z
  .object({
    id: z.uuid().describe('Webhook id.'),
    name: z.string().min(1).max(80).describe('1 to 80 characters.'),
    url: z.string().max(2048).describe('Where deliveries are POSTed: an https URL of a permitted destination.'),
    status: z.enum(['active', 'disabled']).describe('`active`, or `disabled` (by PATCH, a 410 answer, or sustained failure): a disabled webhook receives nothing.'),
    events: z.array(z.string()).describe('Event types delivered: `monitor.result.created` (default), `monitor.run.failed`.'),
    failureCount: z.int().min(0).describe('Consecutive failed attempts; 0 after a success.'),
    disabledAt: z.iso.datetime().nullable().describe('When it was disabled; null while active.'),
    createdAt: z.iso.datetime().describe('When it was created.'),
    updatedAt: z.iso.datetime().describe('When it was last changed.'),
  })
  .meta({ id: 'Webhook' })
  .describe('A destination for signed notifications.');

export const CreatedWebhookShape = WebhookShape.extend({
  secret: z.string().describe('The signing secret (`whsec_…`), returned this once: store it now; it cannot be read again.'),
})
  .meta({ id: 'CreatedWebhook' })
  .describe('A new webhook with its signing secret, shown once.');

export const WebhookDeliveryShape = z
  .object({
    id: z.uuid().describe('Delivery id.'),
    webhookId: z.uuid().describe('The webhook.'),
    eventId: z.string().describe('Event id, sent as `webhook-id`; the same on every attempt, so receivers can deduplicate.'),
    eventType: z.string().describe('Event type, e.g. `monitor.result.created`.'),
    status: z.enum(DELIVERY_STATUSES).describe('`pending`, `retrying`, `succeeded` or `failed` (see docs/webhooks.md).'),
    attempts: z.int().min(0).describe('Attempts made so far, each listed by the delivery read operation.'),
    lastStatusCode: z.int().nullable().describe('HTTP status of the last attempt; null when it got no answer.'),
    lastError: z.string().nullable().describe('Why the last attempt failed; null after a success.'),
    deliveredAt: z.iso.datetime().nullable().describe('When an attempt succeeded; null until then.'),
    createdAt: z.iso.datetime().describe('When the event was raised.'),
  })
  .meta({ id: 'WebhookDelivery' })
  .describe('One event for one webhook, and how its delivery went.');

export type Webhook = z.infer<typeof WebhookShape>;
export type CreatedWebhook = z.infer<typeof CreatedWebhookShape>;
export type WebhookDelivery = z.infer<typeof WebhookDeliveryShape>;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const WebhookAttemptShape = z
  .object({
    number: z.int().min(1).describe('1 for the first attempt.'),
    trigger: z.enum(['scheduled', 'manual', 'redeliver', 'test']).describe('What made it: the retry schedule, a redeliver, or a test.'),
    statusCode: z.int().nullable().describe('HTTP status answered; null when none came (timeout, refused connection, forbidden address).'),
    error: z.string().nullable().describe('Why it failed; null for a 2xx.'),
    durationMs: z.int().min(0).describe('Time from connecting to the end of the answer (or the failure).'),
    responseExcerpt: z.string().nullable().describe('The first 1 KiB of the answer body.'),
    createdAt: z.iso.datetime().describe('When it was made.'),
  })
  .meta({ id: 'WebhookAttempt' })
  .describe('One delivery attempt.');

export const WebhookDeliveryDetailShape = WebhookDeliveryShape.extend({
  nextAttemptAt: z.iso.datetime().nullable().describe('When the next scheduled attempt is due; null once it succeeded or ran out of retries.'),
  attemptLog: z.array(WebhookAttemptShape).describe('Every attempt, first first, including those that will be retried.'),
})
  .meta({ id: 'WebhookDeliveryDetail' })
  .describe('A delivery with every attempt made.');

export type WebhookAttempt = z.infer<typeof WebhookAttemptShape>;
export type WebhookDeliveryDetail = z.infer<typeof WebhookDeliveryDetailShape>;
