import { Pool } from 'undici';
import { UpstreamError } from './upstream-error.ts';
import { RateLimitGate } from './rate-limit-gate.ts';
import { fullJitterDelay, parseRetryAfterMs, sleep } from './retry-policy.ts';

export type UpstreamQuery = Record<string, string | number | boolean | undefined>;

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface UpstreamHttpClientOptions {
  baseUrl: string;
  platform: 'forum' | 'microblog';
  timeoutMs?: number;
  maxRetries?: number;
  headers?: Record<string, string>;
  connections?: number;
  /** Backoff base and ceiling for full-jitter retries. */
  retryBaseMs?: number;
  retryCapMs?: number;
  /** A 429 whose Retry-After asks for longer than this is given up on at once rather than waited out. */
  retryAfterCapMs?: number;
  /** Longest wait for an exhausted rate-limit window before sending anyway. */
  rateLimitWaitCapMs?: number;
}

/** Statuses worth another attempt: the upstream or a proxy in front of it is momentarily overloaded. */
const RETRYABLE_STATUSES = new Set([502, 503, 504]);
/** undici errors of the request itself rather than the network: retrying cannot help. */
const NEVER_RETRY = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_DESTROYED', 'UND_ERR_CLOSED', 'ERR_INVALID_URL']);

/**
 * The one outbound HTTP client both platform clients use. It only ever issues GETs, so every retry is safe.
 * It returns 2xx–4xx (except 429) to the caller, because only the platform client knows whether a 403/404
 * body means "not found" or "not public"; transport failures, timeouts, 5xx and exhausted 429s become
 * `UpstreamError('unavailable')`.
 */
export class UpstreamHttpClient {
  readonly stats = { requests: 0, retries: 0 };
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly platform: 'forum' | 'microblog';
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly headers: Record<string, string>;
  private readonly retryBaseMs: number;
  private readonly retryCapMs: number;
  private readonly retryAfterCapMs: number;
  private readonly gate: RateLimitGate;

  constructor(opts: UpstreamHttpClientOptions) {
    const base = new URL(opts.baseUrl);
    this.pool = new Pool(base.origin, {
      connections: opts.connections ?? 16,
      keepAliveTimeout: 30_000,
      pipelining: 1,
    });
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.platform = opts.platform;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.maxRetries = opts.maxRetries ?? 2;
    this.headers = { accept: 'application/json', ...opts.headers };
    this.retryBaseMs = opts.retryBaseMs ?? 100;
    this.retryCapMs = opts.retryCapMs ?? 2_000;
    this.retryAfterCapMs = opts.retryAfterCapMs ?? 5_000;
    this.gate = new RateLimitGate(opts.rateLimitWaitCapMs ?? 5_000);
  }

  async getJson(path: string, query?: UpstreamQuery): Promise<UpstreamResponse> {
    const fullPath = this.basePath + path + encodeQuery(query);
    let lastProblem = 'no attempt made';
    let lastStatus: number | undefined;
    let lastCause: unknown;
    for (let attempt = 0; attempt <= this.maxRetries; attempt++) {
      if (attempt > 0) this.stats.retries++;
      await this.gate.waitIfExhausted();
      this.stats.requests++;
      let outcome: Attempt;
      try {
        outcome = await this.attempt(fullPath);
      } catch (cause) {
        lastProblem = describeTransportError(cause);
        lastStatus = undefined;
        lastCause = cause;
        // A request the client itself refuses (a malformed path, a closed pool) fails the same way every time.
        if (NEVER_RETRY.has((cause as { code?: string }).code ?? '')) break;
        if (attempt < this.maxRetries) await sleep(fullJitterDelay(attempt, this.retryBaseMs, this.retryCapMs));
        continue;
      }
      this.gate.observe(outcome.headers);
      const { status } = outcome;
      if (status === 429) {
        lastProblem = 'upstream rate limit (429)';
        lastStatus = 429;
        const retryAfter = parseRetryAfterMs(outcome.headers['retry-after']);
        if (retryAfter !== undefined && retryAfter > this.retryAfterCapMs) break;
        if (attempt < this.maxRetries) {
          await sleep(retryAfter ?? fullJitterDelay(attempt, this.retryBaseMs, this.retryCapMs));
        }
        continue;
      }
      if (status >= 500) {
        lastProblem = `upstream answered ${status}`;
        lastStatus = status;
        if (!RETRYABLE_STATUSES.has(status)) break;
        if (attempt < this.maxRetries) await sleep(fullJitterDelay(attempt, this.retryBaseMs, this.retryCapMs));
        continue;
      }
      if (status >= 200 && status < 300 && outcome.parseFailed) {
        throw new UpstreamError('invalid', this.platform, 'upstream sent a body that is not JSON', { status });
      }
      return { status, headers: outcome.headers, body: outcome.body };
    }
    throw new UpstreamError('unavailable', this.platform, `${this.platform} upstream unavailable: ${lastProblem}`, {
      status: lastStatus,
      cause: lastCause,
    });
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  /**
   * One GET through undici's handler interface: the answer's chunks are gathered as they come, without the request
   * API's per-call async resource, body stream and abort signal. The timer bounds the whole exchange, queueing for a
   * connection included: fired while the request still waits for a connection (no controller yet), it rejects at once
   * and the request is aborted as soon as it reaches one, so it is never sent.
   */
  private attempt(path: string): Promise<Attempt> {
    return new Promise((resolve, reject) => {
      let abort: ((reason: Error) => void) | undefined;
      let timedOut: Error | undefined;
      let status = 0;
      let headers: Record<string, string | string[] | undefined> = {};
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => {
        timedOut = new Error(`timed out after ${this.timeoutMs} ms`);
        if (abort) abort(timedOut);
        else reject(timedOut);
      }, this.timeoutMs);
      this.pool.dispatch(
        { method: 'GET', path, headers: this.headers },
        {
          onRequestStart(controller) {
            abort = (reason) => controller.abort(reason);
            if (timedOut) controller.abort(timedOut);
          },
          onResponseStart(_controller, statusCode, responseHeaders) {
            status = statusCode;
            headers = responseHeaders as Record<string, string | string[] | undefined>;
          },
          onResponseData(_controller, chunk) {
            chunks.push(chunk);
          },
          onResponseEnd() {
            clearTimeout(timer);
            resolve(attemptOf(status, headers, textOf(chunks)));
          },
          onResponseError(_controller, error) {
            clearTimeout(timer);
            reject(error);
          },
        },
      );
    });
  }
}

/** The body as text, a leading UTF-8 byte order mark dropped (as undici's `body.text()` does). */
function textOf(chunks: Buffer[]): string {
  const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  const start = body.length > 2 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  return body.toString('utf8', start);
}

function attemptOf(status: number, headers: Record<string, string | string[] | undefined>, text: string): Attempt {
  if (text.length === 0) return { status, headers, body: null, parseFailed: false };
  try {
    return { status, headers, body: JSON.parse(text), parseFailed: false };
  } catch {
    return { status, headers, body: text, parseFailed: true };
  }
}

interface Attempt {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  parseFailed: boolean;
}

/** What `encodeURIComponent` leaves as it is but the form encoding (URLSearchParams) escapes, and its space. */
const FORM_ONLY = /[!'()~]|%20/g;
const formEscape = (match: string) => (match === '%20' ? '+' : `%${match.charCodeAt(0).toString(16).toUpperCase()}`);

/** One key or value as URLSearchParams writes it (application/x-www-form-urlencoded, lone surrogates as U+FFFD). */
function formEncode(text: string): string {
  return encodeURIComponent(text.toWellFormed()).replace(FORM_ONLY, formEscape);
}

/** The query string as URLSearchParams would write it (undefined members left out), without building one per call. */
export function encodeQuery(query: UpstreamQuery | undefined): string {
  let encoded = '';
  for (const key in query) {
    const value = query[key];
    if (value !== undefined) encoded += `${encoded ? '&' : '?'}${formEncode(key)}=${formEncode(String(value))}`;
  }
  return encoded;
}

function describeTransportError(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${cause.message}` : cause.message;
  }
  return String(cause);
}
