import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { destinationPolicyFromEnv } from '../../adapters/webhooks/destination.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver } from '../support/webhook-receiver.ts';
import { finishedRuns, until } from './monitor-support.ts';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

let svc: TestService;
let key: string;
let receiver: Receiver;
/** The service's clock runs this far ahead of the real one: retries come due when a test moves it. */
let offsetMs = 0;

beforeAll(async () => {
  receiver = await startReceiver();
  svc = await startTestService({
    now: () => new Date(Date.now() + offsetMs),
    tiers: { free: { maxWebhooks: 30, rateLimitPerMinute: 100_000 } },
    jobs: { processEvery: 100, deliverySweepMs: 50 },
    // Short enough for the silent receiver's test, long enough that a loaded machine's loopback answer is not a timeout.
    webhookTimeoutMs: 2_000,
  });
  ({ key } = await svc.newKey({ scopes: ['read:social', 'monitors:write', 'webhooks:write'] }));
});
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
});

/** Each receiver path's webhook secret, so every delivery the receiver got can be verified at the end. */
const secrets = new Map<string, string>();

async function createWebhook(path: string, extra: Record<string, unknown> = {}) {
  const res = await svc.request('POST', '/v1/webhooks', { key, body: { name: path, url: receiver.url(path), ...extra } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  secrets.set(path, res.body.data.secret);
  return res.body.data as { id: string; secret: string };
}

/** Every delivery a receiver path got must verify against the secret with the Standard Webhooks library. */
function verifiedAt(path: string, secret: string) {
  return receiver.at(path).map((request) => new Webhook(secret).verify(request.body, request.headers) as { type: string; timestamp: string; data: Record<string, unknown> });
}

async function delivery(id: string) {
  return (await svc.request('GET', `/v1/webhook-deliveries/${id}`, { key })).body.data;
}

describe('webhook resources', () => {
  it('returns the secret once, stores it encrypted, and never shows it again', async () => {
    const hook = await createWebhook('/once');
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(hook.secret.slice(6), 'base64')).toHaveLength(32);
    expect(hook).toMatchObject({ status: 'active', events: ['monitor.result.created'], failureCount: 0, disabledAt: null });
    const read = (await svc.request('GET', `/v1/webhooks/${hook.id}`, { key })).body.data;
    expect(read).not.toHaveProperty('secret');
    expect(JSON.stringify((await svc.request('GET', '/v1/webhooks', { key })).body)).not.toContain(hook.secret);
    const [row] = await svc.service.orm.em.getConnection().execute<{ secret_ciphertext: string }[]>(`select "secret_ciphertext" from "webhook" where "id" = ?`, [hook.id], 'all');
    expect(row.secret_ciphertext).toMatch(/^v1\.k1\./);
    expect(row.secret_ciphertext).not.toContain(hook.secret.slice(6, 20));
  });

  it('answers 404 for another account’s webhook and 409 at the tier’s webhook ceiling', async () => {
    const hook = await createWebhook('/mine');
    const other = await svc.newKey({ scopes: ['webhooks:write'] });
    for (const [method, path] of [['GET', `/v1/webhooks/${hook.id}`], ['PATCH', `/v1/webhooks/${hook.id}`], ['DELETE', `/v1/webhooks/${hook.id}`], ['POST', `/v1/webhooks/${hook.id}/test`]] as const) {
      const res = await svc.request(method, path, { key: other.key, ...(method === 'PATCH' ? { body: { name: 'x' } } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    await svc.request('POST', `/v1/webhooks/${hook.id}/test`, { key });
    const theirs = await svc.request('GET', `/v1/webhook-deliveries?webhookId=${hook.id}`, { key: other.key });
    expect(theirs.status).toBe(200);
    expect(theirs.body.data).toEqual([]);
    expect((await svc.request('GET', `/v1/webhook-deliveries?webhookId=${hook.id}`, { key })).body.data).toHaveLength(1);
    const { maxWebhooks } = (await svc.request('GET', '/v1/limits', { key: other.key })).body.data;
    for (let i = 0; i < maxWebhooks; i++) {
      expect((await svc.request('POST', '/v1/webhooks', { key: other.key, body: { name: `h${i}`, url: 'https://hooks.example.com/x' } })).status).toBe(201);
    }
    const oneMore = await svc.request('POST', '/v1/webhooks', { key: other.key, body: { name: 'too many', url: 'https://hooks.example.com/x' } });
    expect(oneMore.status).toBe(409);
    expect(oneMore.body.error.details).toMatchObject({ limit: 'maxWebhooks', maxWebhooks });
  });

  it('refuses an event named twice as a duplicate value naming events, on create and update, three members included', async () => {
    for (const events of [['monitor.run.failed', 'monitor.run.failed'], ['monitor.result.created', 'monitor.run.failed', 'monitor.result.created']]) {
      const created = await svc.request('POST', '/v1/webhooks', { key, body: { name: 'dup', url: receiver.url('/dup'), events } });
      expect(created.status, JSON.stringify(created.body)).toBe(400);
      expect(created.body.error.details.field).toBe('events');
      expect(created.body.error.message).toMatch(/duplicate value/);
    }
    const hook = await createWebhook('/dup-update');
    const patched = await svc.request('PATCH', `/v1/webhooks/${hook.id}`, { key, body: { events: ['monitor.result.created', 'monitor.result.created'] } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(400);
    expect(patched.body.error.details.field).toBe('events');
    expect((await svc.request('GET', `/v1/webhooks/${hook.id}`, { key })).body.data.events).toEqual(['monitor.result.created']);
  });

  it('trims a name, and refuses one that is all spaces with a 400 naming name', async () => {
    const blank = await svc.request('POST', '/v1/webhooks', { key, body: { name: '   ', url: receiver.url('/blank') } });
    expect(blank.status).toBe(400);
    expect(blank.body.error.details.field).toBe('name');
    const hook = await createWebhook('/trimmed', { name: '  Inbox  ' });
    expect((await svc.request('GET', `/v1/webhooks/${hook.id}`, { key })).body.data.name).toBe('Inbox');
    const renamed = await svc.request('PATCH', `/v1/webhooks/${hook.id}`, { key, body: { name: '\t' } });
    expect(renamed.status).toBe(400);
    expect(renamed.body.error.details.field).toBe('name');
  });

  it('applies two PATCHes of one webhook at once without either undoing the other', async () => {
    for (let i = 0; i < 5; i++) {
      const hook = await createWebhook(`/patched-${i}`);
      const [renamed, disabled] = await Promise.all([
        svc.request('PATCH', `/v1/webhooks/${hook.id}`, { key, body: { name: `renamed ${i}` } }),
        svc.request('PATCH', `/v1/webhooks/${hook.id}`, { key, body: { status: 'disabled' } }),
      ]);
      expect([renamed.status, disabled.status]).toEqual([200, 200]);
      const read = (await svc.request('GET', `/v1/webhooks/${hook.id}`, { key })).body.data;
      expect(read).toMatchObject({ name: `renamed ${i}`, status: 'disabled' });
      expect(read.disabledAt).not.toBeNull();
    }
  });

  it('detaches a deleted webhook from its monitors', async () => {
    const hook = await createWebhook('/detach');
    const monitor = (await svc.request('POST', '/v1/monitors', { key, body: { name: 'd', target: { kind: 'search', keywords: 'rust' }, webhookId: hook.id, schedule: 'manual' } })).body.data;
    expect(monitor.webhookId).toBe(hook.id);
    await svc.request('DELETE', `/v1/webhooks/${hook.id}`, { key });
    expect((await svc.request('GET', `/v1/monitors/${monitor.id}`, { key })).body.data.webhookId).toBeNull();
  });
});

describe('deliveries', () => {
  it('delivers a monitor’s new result as a signed monitor.result.created event', async () => {
    const hook = await createWebhook('/results');
    const monitor = (await svc.request('POST', '/v1/monitors', { key, body: { name: 'w', target: { kind: 'search', keywords: 'narwhalpunk' }, sources: ['forum'], webhookId: hook.id } })).body.data;
    await finishedRuns(svc, key, monitor.id, 1);
    const post = svc.service.platforms.sims.forum!.world.addPost({ subforum: 'programming', title: 'narwhalpunk is a genre now', selftext: 'Discuss.' });
    await svc.request('POST', `/v1/monitors/${monitor.id}/run`, { key });
    await finishedRuns(svc, key, monitor.id, 2);
    await until(() => svc.request('GET', `/v1/webhook-deliveries?webhookId=${hook.id}`, { key }), (body) => body.data.some((d: { status: string }) => d.status === 'succeeded'));
    const [event] = verifiedAt('/results', hook.secret);
    expect(event.type).toBe('monitor.result.created');
    expect(event.data).toMatchObject({ monitor: { id: monitor.id }, run: { monitorId: monitor.id, status: 'succeeded' }, result: { externalId: post.id, itemType: 'post' } });
    const [listed] = (await svc.request('GET', `/v1/webhook-deliveries?webhookId=${hook.id}`, { key })).body.data;
    expect(listed).toMatchObject({ eventType: 'monitor.result.created', status: 'succeeded', attempts: 1, lastStatusCode: 200, lastError: null });
    expect(listed.eventId).toBe(receiver.at('/results')[0].headers['webhook-id']);
    expect(listed.eventId).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('sends monitor.run.failed to a webhook that selects it, and only the events it selects', async () => {
    // An account of its own, whose spending is paused below without touching the other tests.
    const own = await svc.newKey({ scopes: ['monitors:write', 'webhooks:write', 'read:forum'] });
    const hook = (await svc.request('POST', '/v1/webhooks', { key: own.key, body: { name: 'failures', url: receiver.url('/failures'), events: ['monitor.run.failed'] } })).body.data;
    secrets.set('/failures', hook.secret);
    svc.service.platforms.sims.forum!.world.addPost({ subforum: 'programming', title: 'failwhale sightings', selftext: 'A classic.' });
    const body = { name: 'f', target: { kind: 'search', keywords: 'failwhale' }, sources: ['forum'], webhookId: hook.id, schedule: 'manual', backfill: 1 };
    const monitor = (await svc.request('POST', '/v1/monitors', { key: own.key, body })).body.data;
    const [baseline] = await finishedRuns(svc, own.key, monitor.id, 1);
    expect(baseline.newResults).toBe(1);
    await svc.operator('POST', `/operator/workspaces/${own.workspaceId}/pause`, {});
    try {
      await svc.request('POST', `/v1/monitors/${monitor.id}/run`, { key: own.key });
      const [failed] = await finishedRuns(svc, own.key, monitor.id, 2);
      expect(failed.status).toBe('failed');
      const deliveries = await until(
        () => svc.request('GET', `/v1/webhook-deliveries?webhookId=${hook.id}`, { key: own.key }),
        (list) => list.data.some((d: { status: string }) => d.status === 'succeeded'),
      );
      // The baseline's new result raised nothing: the webhook selects monitor.run.failed only.
      expect(deliveries.data.map((d: { eventType: string }) => d.eventType)).toEqual(['monitor.run.failed']);
      const [event] = verifiedAt('/failures', hook.secret) as unknown as { type: string; data: { monitor: { id: string }; run: { id: string; status: string; errorSummary: string } } }[];
      expect(event.type).toBe('monitor.run.failed');
      expect(event.data.monitor.id).toBe(monitor.id);
      expect(event.data.run).toMatchObject({ id: failed.id, status: 'failed' });
      expect(event.data.run.errorSummary).toMatch(/^spending_paused/);
    } finally {
      await svc.operator('POST', `/operator/workspaces/${own.workspaceId}/resume`, {});
    }
  });

  it('sends a signed webhook.test event now, and redelivers it with the same id', async () => {
    const hook = await createWebhook('/test');
    const sent = await svc.request('POST', `/v1/webhooks/${hook.id}/test`, { key });
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({ eventType: 'webhook.test', status: 'succeeded', attempts: 1, lastStatusCode: 200 });
    expect(verifiedAt('/test', hook.secret)[0].type).toBe('webhook.test');
    const again = await svc.request('POST', `/v1/webhook-deliveries/${sent.body.data.id}/redeliver`, { key });
    expect(again.body.data).toMatchObject({ status: 'succeeded', attempts: 2 });
    const [first, second] = receiver.at('/test');
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(verifiedAt('/test', hook.secret)).toHaveLength(2);
    expect((await delivery(sent.body.data.id)).attemptLog.map((a: { trigger: string }) => a.trigger)).toEqual(['test', 'redeliver']);
  });

  it('records a failed attempt and retries it on the schedule with the same event id', async () => {
    receiver.answer('/flaky', { status: 500 });
    const hook = await createWebhook('/flaky');
    const sent = (await svc.request('POST', `/v1/webhooks/${hook.id}/test`, { key })).body.data;
    expect(sent).toMatchObject({ status: 'retrying', attempts: 1, lastStatusCode: 500, lastError: 'HTTP 500', deliveredAt: null });
    const detail = await delivery(sent.id);
    // The first retry follows 5 s later, give or take the 10 % jitter.
    const wait = Date.parse(detail.nextAttemptAt) - Date.parse(detail.attemptLog[0].createdAt);
    expect(wait).toBeGreaterThanOrEqual(4_500);
    expect(wait).toBeLessThanOrEqual(5_500);
    receiver.answer('/flaky', { status: 204 });
    offsetMs += 6_000;
    const done = await until(() => svc.request('GET', `/v1/webhook-deliveries/${sent.id}`, { key }), (body) => body.data.status === 'succeeded');
    expect(done.data).toMatchObject({ attempts: 2, lastStatusCode: 204, lastError: null });
    expect(done.data.attemptLog.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 204]);
    expect(done.data.attemptLog[0].responseExcerpt).toBe('answered 500');
    const ids = receiver.at('/flaky').map((request) => request.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);
    expect((await svc.request('GET', `/v1/webhooks/${hook.id}`, { key })).body.data.failureCount).toBe(0);
  });

  it('does not follow redirects, and times out a silent receiver', async () => {
    receiver.answer('/moved', { status: 302, headers: { location: receiver.url('/elsewhere') } });
    const moved = await createWebhook('/moved');
    const redirected = (await svc.request('POST', `/v1/webhooks/${moved.id}/test`, { key })).body.data;
    expect(redirected).toMatchObject({ status: 'retrying', lastStatusCode: 302 });
    expect(redirected.lastError).toMatch(/redirect .* not followed/);
    expect(receiver.at('/elsewhere')).toHaveLength(0);

    receiver.answer('/silent', 'hang');
    const silent = await createWebhook('/silent');
    const timedOut = (await svc.request('POST', `/v1/webhooks/${silent.id}/test`, { key })).body.data;
    expect(timedOut).toMatchObject({ status: 'retrying', lastStatusCode: null, lastError: 'timed out after 2000 ms' });
  });

  it('stores an answer with a NUL or invalid UTF-8 with U+FFFD in their place: the attempt is counted and retried', async () => {
    receiver.answer('/nul', { status: 500, body: 'bad\u0000body' });
    const invalid = Buffer.from([0x62, 0x61, 0x64, 0xff, 0xed, 0xa0, 0x80, 0x00]);
    receiver.answer('/invalid-utf8', { status: 500, body: invalid });
    for (const [path, excerpt] of [
      ['/nul', 'bad\uFFFDbody'],
      ['/invalid-utf8', 'bad\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD'],
    ] as const) {
      const hook = await createWebhook(path);
      const sent = await svc.request('POST', `/v1/webhooks/${hook.id}/test`, { key });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      expect(sent.body.data).toMatchObject({ status: 'retrying', attempts: 1, lastStatusCode: 500, lastError: 'HTTP 500' });
      const detail = await delivery(sent.body.data.id);
      expect(detail.attemptLog).toHaveLength(1);
      expect(detail.attemptLog[0].responseExcerpt).toBe(excerpt);
      expect(detail.nextAttemptAt).not.toBeNull();
      expect((await svc.request('GET', `/v1/webhooks/${hook.id}`, { key })).body.data.failureCount).toBe(1);
    }
  });

  it('refuses a test with 429 while the webhook has 10 test deliveries waiting, also when they are sent at once', async () => {
    receiver.answer('/backlog', { status: 500 });
    const hook = await createWebhook('/backlog');
    const tests = await Promise.all(Array.from({ length: 15 }, () => svc.request('POST', `/v1/webhooks/${hook.id}/test`, { key })));
    expect(tests.map((res) => res.status).sort()).toEqual([...Array(10).fill(200), ...Array(5).fill(429)]);
    const refused = tests.find((res) => res.status === 429)!;
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', retryable: true, details: { reason: 'test_deliveries_waiting', maxWaitingTests: 10 } });
    expect(refused.body.error.message).toMatch(/10 test deliveries waiting/);
    // The soonest waiting test's retry is 5 s away (its lease, 60 s, while it is being attempted).
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    const waiting = (await svc.request('GET', `/v1/webhook-deliveries?webhookId=${hook.id}`, { key })).body.data;
    expect(waiting).toHaveLength(10);
    // Once the receiver answers, a redelivered test is delivered and makes room for another.
    receiver.answer('/backlog', { status: 200 });
    expect((await svc.request('POST', `/v1/webhook-deliveries/${waiting[0].id}/redeliver`, { key })).body.data.status).toBe('succeeded');
    const again = await svc.request('POST', `/v1/webhooks/${hook.id}/test`, { key });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('refuses a sixth redelivery of one delivery within the hour with 429, also when sent at once, sending nothing', async () => {
    receiver.answer('/redelivered', { status: 200 });
    const hook = await createWebhook('/redelivered');
    const sent = (await svc.request('POST', `/v1/webhooks/${hook.id}/test`, { key })).body.data;
    const other = (await svc.request('POST', `/v1/webhooks/${hook.id}/test`, { key })).body.data;
    const received = receiver.at('/redelivered').length;
    const redeliver = (id: string) => svc.request('POST', `/v1/webhook-deliveries/${id}/redeliver`, { key });
    // Before: all 8 were sent, and as many more as asked.
    const at = await Promise.all(Array.from({ length: 8 }, () => redeliver(sent.id)));
    expect(at.map((res) => res.status).sort()).toEqual([...Array(5).fill(200), ...Array(3).fill(429)]);
    const refused = at.find((res) => res.status === 429)!;
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', retryable: true, details: { reason: 'too_many_redeliveries', maxRedeliveries: 5, windowSeconds: 3600 } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3_500);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(3_600);
    expect(receiver.at('/redelivered').length - received).toBe(5);
    expect((await delivery(sent.id)).attemptLog.map((a: { trigger: string }) => a.trigger)).toEqual(['test', ...Array(5).fill('redeliver')]);
    // Each delivery has a window of its own; the full one closes an hour after its first redelivery.
    expect((await redeliver(other.id)).status).toBe(200);
    offsetMs += 3_600_000;
    expect((await redeliver(sent.id)).status).toBe(200);
    expect((await delivery(sent.id)).attempts).toBe(7);
  });

  it('honours Retry-After, and a 410 disables the webhook at once', async () => {
    receiver.answer('/busy', { status: 429, headers: { 'retry-after': '120' } });
    const busy = await createWebhook('/busy');
    const sent = (await svc.request('POST', `/v1/webhooks/${busy.id}/test`, { key })).body.data;
    const detail = await delivery(sent.id);
    expect(Date.parse(detail.nextAttemptAt) - Date.parse(detail.attemptLog[0].createdAt)).toBeGreaterThanOrEqual(120_000);

    receiver.answer('/gone', { status: 410 });
    const gone = await createWebhook('/gone');
    const last = (await svc.request('POST', `/v1/webhooks/${gone.id}/test`, { key })).body.data;
    expect(last).toMatchObject({ status: 'failed', lastStatusCode: 410, lastError: 'HTTP 410; the webhook is now disabled' });
    const webhook = (await svc.request('GET', `/v1/webhooks/${gone.id}`, { key })).body.data;
    expect(webhook).toMatchObject({ status: 'disabled', failureCount: 1 });
    expect(webhook.disabledAt).not.toBeNull();
    expect((await svc.request('POST', `/v1/webhooks/${gone.id}/test`, { key })).status).toBe(409);
    const reactivated = (await svc.request('PATCH', `/v1/webhooks/${gone.id}`, { key, body: { status: 'active' } })).body.data;
    expect(reactivated).toMatchObject({ status: 'active', failureCount: 0, disabledAt: null });
  });

  it('disables a webhook whose every attempt has failed for five days', async () => {
    receiver.answer('/down', { status: 503 });
    const hook = await createWebhook('/down');
    const sent = (await svc.request('POST', `/v1/webhooks/${hook.id}/test`, { key })).body.data;
    expect((await svc.request('GET', `/v1/webhooks/${hook.id}`, { key })).body.data.status).toBe('active');
    offsetMs += 5 * 86_400_000 + 60_000;
    const settled = await until(() => svc.request('GET', `/v1/webhooks/${hook.id}`, { key }), (body) => body.data.status === 'disabled');
    expect(settled.data.failureCount).toBeGreaterThanOrEqual(2);
    const detail = await delivery(sent.id);
    expect(detail).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(detail.lastError).toBe('HTTP 503; the webhook is now disabled');
    expect(detail.attempts).toBeGreaterThanOrEqual(2);
  });
});

describe('a disabled webhook', () => {
  it('is not redelivered to (409 as for test), and its waiting delivery is attempted only once it is active again', async () => {
    receiver.answer('/paused', { status: 500 });
    const hook = await createWebhook('/paused');
    const waiting = (await svc.request('POST', `/v1/webhooks/${hook.id}/test`, { key })).body.data;
    expect(waiting).toMatchObject({ status: 'retrying', attempts: 1 });
    receiver.answer('/paused', { status: 200 });
    const sent = (await svc.request('POST', `/v1/webhooks/${hook.id}/test`, { key })).body.data;
    expect(sent).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect((await svc.request('PATCH', `/v1/webhooks/${hook.id}`, { key, body: { status: 'disabled' } })).body.data.status).toBe('disabled');

    for (const id of [sent.id, waiting.id]) {
      const refused = await svc.request('POST', `/v1/webhook-deliveries/${id}/redeliver`, { key });
      expect(refused.status, JSON.stringify(refused.body)).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'conflict', details: { status: 'disabled' } });
    }
    // Its waiting retry comes due beside another webhook's: the sweep that retries that one leaves this one alone.
    receiver.answer('/beside', { status: 500 });
    const beside = await createWebhook('/beside');
    const besideSent = (await svc.request('POST', `/v1/webhooks/${beside.id}/test`, { key })).body.data;
    receiver.answer('/beside', { status: 200 });
    offsetMs += 6_000;
    await until(() => svc.request('GET', `/v1/webhook-deliveries/${besideSent.id}`, { key }), (body) => body.data.status === 'succeeded');
    expect(await delivery(waiting.id)).toMatchObject({ status: 'retrying', attempts: 1 });
    expect(await delivery(sent.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(receiver.at('/paused')).toHaveLength(2);

    await svc.request('PATCH', `/v1/webhooks/${hook.id}`, { key, body: { status: 'active' } });
    const resumed = await until(() => svc.request('GET', `/v1/webhook-deliveries/${waiting.id}`, { key }), (body) => body.data.status === 'succeeded');
    expect(resumed.data.attempts).toBe(2);
    expect(receiver.at('/paused')).toHaveLength(3);
  });

  it('is not told of results found while it was disabled; the monitor keeps and lists them', async () => {
    const hook = await createWebhook('/asleep');
    const forum = svc.service.platforms.sims.forum!.world;
    const monitor = (await svc.request('POST', '/v1/monitors', { key, body: { name: 'a', target: { kind: 'search', keywords: 'dormouse' }, sources: ['forum'], webhookId: hook.id, schedule: 'manual' } })).body.data;
    await finishedRuns(svc, key, monitor.id, 1);
    await svc.request('PATCH', `/v1/webhooks/${hook.id}`, { key, body: { status: 'disabled' } });
    const meanwhile = forum.addPost({ subforum: 'programming', title: 'A dormouse asleep in the teapot', selftext: 'Found while the webhook was off.' });
    await svc.request('POST', `/v1/monitors/${monitor.id}/run`, { key });
    expect((await finishedRuns(svc, key, monitor.id, 2))[0]).toMatchObject({ status: 'succeeded', newResults: 1 });
    await svc.request('PATCH', `/v1/webhooks/${hook.id}`, { key, body: { status: 'active' } });
    const results = (await svc.request('GET', `/v1/monitors/${monitor.id}/results`, { key })).body.data;
    expect(results.map((result: { externalId: string }) => result.externalId)).toEqual([meanwhile.id]);
    expect((await svc.request('GET', `/v1/webhook-deliveries?webhookId=${hook.id}`, { key })).body.data).toEqual([]);

    const after = forum.addPost({ subforum: 'programming', title: 'A dormouse awake at last', selftext: 'Found once the webhook was on again.' });
    await svc.request('POST', `/v1/monitors/${monitor.id}/run`, { key });
    await finishedRuns(svc, key, monitor.id, 3);
    const deliveries = await until(() => svc.request('GET', `/v1/webhook-deliveries?webhookId=${hook.id}`, { key }), (body) => body.data.some((d: { status: string }) => d.status === 'succeeded'));
    expect(deliveries.data).toHaveLength(1);
    // Signed on the service's advanced clock: the signatures are checked with every other delivery's at the end.
    expect(receiver.at('/asleep').map((request) => JSON.parse(request.body).data.result.externalId)).toEqual([after.id]);
  });
});

describe('SVC_WEBHOOK_ALLOW_HOSTS naming host:port', () => {
  let narrow: TestService;
  let narrowKey: string;
  let port: number;
  beforeAll(async () => {
    port = Number(new URL(receiver.url('/')).port);
    const policy = destinationPolicyFromEnv({ SVC_WEBHOOK_ALLOW_HTTP: 'true', SVC_WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${port}` });
    narrow = await startTestService({ webhookDestinations: policy, tiers: { free: { maxWebhooks: 5, rateLimitPerMinute: 100_000 } } });
    ({ key: narrowKey } = await narrow.newKey({ scopes: ['webhooks:write'] }));
  });
  afterAll(async () => {
    await narrow?.close();
  });

  it('allows that port of the host and no other', async () => {
    const other = port === 65_535 ? port - 1 : port + 1;
    const refused = await narrow.request('POST', '/v1/webhooks', { key: narrowKey, body: { name: 'other port', url: `http://127.0.0.1:${other}/` } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'forbidden_destination', details: { field: 'url' } });
    expect(refused.body.error.details.reason).toMatch(/loopback/);
    const created = await narrow.request('POST', '/v1/webhooks', { key: narrowKey, body: { name: 'its port', url: receiver.url('/narrow') } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    secrets.set('/narrow', created.body.data.secret);
    expect((await narrow.request('PATCH', `/v1/webhooks/${created.body.data.id}`, { key: narrowKey, body: { url: `http://127.0.0.1:${other}/` } })).status).toBe(400);
    const sent = await narrow.request('POST', `/v1/webhooks/${created.body.data.id}/test`, { key: narrowKey });
    expect(sent.body.data).toMatchObject({ status: 'succeeded', lastStatusCode: 200 });
    expect(receiver.at('/narrow')).toHaveLength(1);
  });
});

describe('every delivery received', () => {
  it('verifies with the standardwebhooks package against its webhook’s secret', () => {
    expect(receiver.received.length).toBeGreaterThan(10);
    // Retries were signed on the service's advanced clock: each is verified at the time it was signed, so the
    // library's 5-minute timestamp tolerance does not stand in the way of checking its signature.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      for (const request of receiver.received) {
        const secret = secrets.get(request.path);
        expect(secret, `a delivery to ${request.path}, which no webhook of this file names`).toBeDefined();
        vi.setSystemTime(Number(request.headers['webhook-timestamp']) * 1000);
        const event = new Webhook(secret!).verify(request.body, request.headers) as { type: string; timestamp: string; data: unknown };
        expect(Object.keys(event).sort()).toEqual(['data', 'timestamp', 'type']);
        expect(request.headers['webhook-id']).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
      }
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('permitted destinations', () => {
  let strict: TestService;
  let strictKey: string;
  let resolveTo: string[] | null = null;
  beforeAll(async () => {
    strict = await startTestService({
      webhookDestinations: {
        allowHttp: false,
        allowHosts: new Set(),
        // `rebind.test` does not resolve when the webhook is made, and resolves to loopback at delivery.
        lookup: async (hostname) => {
          if (hostname === 'rebind.test') {
            if (!resolveTo) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
            return resolveTo;
          }
          if (hostname === 'localhost') return ['127.0.0.1'];
          throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
        },
      },
      tiers: { free: { maxWebhooks: 50, rateLimitPerMinute: 100_000 } },
    });
    ({ key: strictKey } = await strict.newKey({ scopes: ['webhooks:write'] }));
  });
  afterAll(async () => {
    await strict?.close();
  });

  it.each([
    ['http://hooks.example.com/plain', /https/],
    ['https://127.0.0.1/', /loopback/],
    ['https://127.1/', /loopback/],
    ['https://0x7f000001/', /loopback/],
    ['https://2130706433/', /loopback/],
    ['https://[::1]/', /loopback/],
    ['https://[::ffff:127.0.0.1]/', /loopback/],
    // IPv4-compatible (::/96): not global unicast, whatever IPv4 address it spells.
    ['https://[::7f00:1]:19091/', /::7f00:1 is an address that is not global unicast/],
    ['https://[::127.0.0.1]/', /::7f00:1 is an address that is not global unicast/],
    ['https://[::a00:1]/', /is an address that is not global unicast/],
    ['https://[4000::1]/', /is an address that is not global unicast/],
    ['https://[2001:db8::1]/', /reserved/],
    ['https://[2002:7f00:1::1]/', /6to4/],
    ['https://[2001::1]/', /teredo/],
    ['https://[64:ff9b::7f00:1]/', /rfc6052/],
    ['https://10.1.2.3/', /private/],
    ['https://172.16.0.1/', /private/],
    ['https://192.168.1.1/', /private/],
    ['https://169.254.169.254/latest/meta-data', /linkLocal/],
    // Azure's host endpoint is in public space: refused by name, not by range.
    ['https://168.63.129.16/metadata/instance', /^168\.63\.129\.16 is a cloud metadata address$/],
    ['https://[::ffff:168.63.129.16]/', /cloud metadata address/],
    ['https://100.64.0.1/', /carrierGradeNat/],
    ['https://[fc00::1]/', /uniqueLocal/],
    ['https://[fe80::1]/', /linkLocal/],
    ['https://0.0.0.0/', /unspecified/],
    ['https://224.0.0.1/', /multicast/],
    ['https://255.255.255.255/', /broadcast/],
    ['https://localhost/', /^localhost resolves to a loopback address$/],
  ])('refuses %s', async (url, reason) => {
    const res = await strict.request('POST', '/v1/webhooks', { key: strictKey, body: { name: 'bad', url } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('forbidden_destination');
    expect(res.body.error.details.field).toBe('url');
    expect(res.body.error.details.reason).toMatch(reason);
  });

  it.each(['ftp://example.com/hooks', 'not a url'])('refuses %s naming what a URL must be', async (url) => {
    const res = await strict.request('POST', '/v1/webhooks', { key: strictKey, body: { name: 'bad', url } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'url' } });
    // Before: "Invalid URL", for a URL that parses (spec review h, L4).
    expect(res.body.error.message).toContain('Expected an https URL');
  });

  it('refuses a forbidden destination on update too, and an event type it does not know', async () => {
    const hook = (await strict.request('POST', '/v1/webhooks', { key: strictKey, body: { name: 'good', url: 'https://hooks.example.com/in' } })).body.data;
    const moved = await strict.request('PATCH', `/v1/webhooks/${hook.id}`, { key: strictKey, body: { url: 'https://0x7f000001/' } });
    expect(moved.status).toBe(400);
    expect(moved.body.error).toMatchObject({ code: 'forbidden_destination', details: { field: 'url' } });
    expect((await strict.request('GET', `/v1/webhooks/${hook.id}`, { key: strictKey })).body.data.url).toBe('https://hooks.example.com/in');
    const unknown = await strict.request('POST', '/v1/webhooks', { key: strictKey, body: { name: 'x', url: 'https://hooks.example.com/in', events: ['monitor.deleted'] } });
    expect(unknown.status).toBe(400);
    expect(String(unknown.body.error.details.field)).toMatch(/^events/);
  });

  it('accepts a name that does not resolve yet, and refuses it at delivery once it resolves to loopback', async () => {
    const created = await strict.request('POST', '/v1/webhooks', { key: strictKey, body: { name: 'rebind', url: 'https://rebind.test/hook' } });
    expect(created.status).toBe(201);
    resolveTo = ['127.0.0.1'];
    const sent = (await strict.request('POST', `/v1/webhooks/${created.body.data.id}/test`, { key: strictKey })).body.data;
    expect(sent).toMatchObject({ status: 'retrying', lastStatusCode: null });
    expect(sent.lastError).toMatch(/forbidden destination: rebind\.test resolves to a loopback address/);
    // The connection's own lookup applies the same rule: an IPv4-compatible IPv6 address is refused there too.
    resolveTo = ['::7f00:1'];
    const again = (await strict.request('POST', `/v1/webhook-deliveries/${sent.id}/redeliver`, { key: strictKey })).body.data;
    expect(again.lastError).toMatch(/forbidden destination: rebind\.test resolves to an address that is not global unicast/);
    expect(again.lastError).not.toContain('7f00');
  });
});
