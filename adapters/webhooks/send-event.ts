import { request } from 'undici';
import { storableText } from '../db/storable-text.ts';
import type { AttemptOutcome, SendEvent } from './delivery-worker.ts';
import { destinationAgent } from './destination-agent.ts';
import type { DestinationPolicy } from './destination.ts';
import { signedHeaders } from './standard-webhooks.ts';

export const ATTEMPT_TIMEOUT_MS = 15_000;
const EXCERPT_BYTES = 1024;
/** A `Retry-After` beyond this is read as this: the schedule's own longest wait. */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** `Retry-After` in seconds or as an HTTP date, bounded; null when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, now: Date): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  const ms = /^\d+$/.test(text.trim()) ? Number(text.trim()) * 1000 : Date.parse(text) - now.getTime();
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : null;
}

/** The answer's first bytes as storable text: invalid UTF-8 (a cut character too) and NULs read as U+FFFD. */
async function excerptOf(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= EXCERPT_BYTES) break;
  }
  body.destroy();
  return storableText(Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8'));
}

/**
 * The delivery sender. Every connection resolves its host through the destination rule (so a name that turns into a
 * forbidden address at delivery, DNS rebinding included, is refused on the connection actually used), a literal
 * address is checked before connecting, redirects are never followed (a 3xx is a failed attempt), and an attempt ends
 * after `timeoutMs`.
 */
export function createEventSender(policy: DestinationPolicy, options: { timeoutMs?: number; clock?: () => Date } = {}): SendEvent & { close(): Promise<void> } {
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const clock = options.clock ?? (() => new Date());
  const agent = destinationAgent(policy, { timeoutMs });

  const send: SendEvent = async ({ url, secret, eventId, timestamp, body }) => {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    try {
      const response = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', 'user-agent': 'conversation-data-service-webhooks', ...signedHeaders(secret, eventId, timestamp, body) },
        body,
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const excerpt = await excerptOf(response.body);
      const status = response.statusCode;
      const error = status >= 200 && status < 300 ? null : status >= 300 && status < 400 ? `redirect to ${String(response.headers.location ?? '?')} not followed` : `HTTP ${status}`;
      const outcome: AttemptOutcome = { statusCode: status, error: error && storableText(error), durationMs: elapsed(), responseExcerpt: excerpt || null, retryAfterMs: retryAfterMs(response.headers['retry-after'], clock()) };
      return outcome;
    } catch (error) {
      const cause = (error as { cause?: Error }).cause ?? (error as Error);
      const message = (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError' ? `timed out after ${timeoutMs} ms` : cause.message || String(error);
      return { statusCode: null, error: storableText(message), durationMs: elapsed(), responseExcerpt: null, retryAfterMs: null };
    }
  };
  return Object.assign(send, { close: () => agent.close() });
}
