import type { MicroblogClientOptions } from './microblog-client.ts';
import type { MicroblogOperation } from './microblog-operations.ts';

/**
 * Client options from the environment. `MICROBLOG_UPSTREAM_URL` points the client at the real platform or at a
 * replay server; unset, the service uses its in-process simulated platform (returns null).
 * Optional: `MICROBLOG_BEARER_TOKEN`, `MICROBLOG_COOKIE` and `MICROBLOG_CSRF_TOKEN` (an authenticated web
 * session), `MICROBLOG_QUERY_IDS` (JSON `{"TweetDetail": "…"}`, since query ids rotate), `MICROBLOG_TIMEOUT_MS`.
 */
export function microblogClientOptionsFromEnv(env: Record<string, string | undefined>): MicroblogClientOptions | null {
  const baseUrl = env.MICROBLOG_UPSTREAM_URL;
  if (!baseUrl) return null;
  const headers: Record<string, string> = {};
  if (env.MICROBLOG_COOKIE) headers.cookie = env.MICROBLOG_COOKIE;
  if (env.MICROBLOG_CSRF_TOKEN) headers['x-csrf-token'] = env.MICROBLOG_CSRF_TOKEN;
  let queryIds: Partial<Record<MicroblogOperation, string>> | undefined;
  if (env.MICROBLOG_QUERY_IDS) {
    const parsed: unknown = JSON.parse(env.MICROBLOG_QUERY_IDS);
    if (!parsed || typeof parsed !== 'object') throw new Error('MICROBLOG_QUERY_IDS must be a JSON object');
    queryIds = parsed as Partial<Record<MicroblogOperation, string>>;
  }
  const timeoutMs = env.MICROBLOG_TIMEOUT_MS ? Number(env.MICROBLOG_TIMEOUT_MS) : undefined;
  return { baseUrl, bearerToken: env.MICROBLOG_BEARER_TOKEN, headers, queryIds, timeoutMs };
}
