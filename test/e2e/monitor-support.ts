import type { HttpResult, TestService } from '../support/service.ts';

/** Polls an API read until `done` holds: a client waiting for a queued job, bounded in tries. */
export async function until<T>(read: () => Promise<HttpResult<T>>, done: (body: T) => boolean, tries = 200): Promise<T> {
  let last: HttpResult<T> | undefined;
  for (let i = 0; i < tries; i++) {
    last = await read();
    if (last.status < 300 && done(last.body)) return last.body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`condition not reached; last answer ${last?.status} ${JSON.stringify(last?.body).slice(0, 500)}`);
}

interface Run {
  id: string;
  status: string;
  newResults: number;
  resultsFound: number;
  creditsUsed: number;
  suppressed: { seenId: number; seenLink: number; seenContent: number; duplicateInRun: number; filtered: number; baseline: number };
  errorSummary: string | null;
  finishedAt: string | null;
}

/** Waits until the monitor has `count` finished runs; returns the runs, newest first. */
export async function finishedRuns(svc: TestService, key: string, monitorId: string, count: number, tries?: number): Promise<Run[]> {
  const body = await until<{ data: Run[] }>(
    () => svc.request('GET', `/v1/monitors/${monitorId}/runs?limit=100`, { key }),
    (b) => b.data.filter((run) => !['queued', 'running'].includes(run.status)).length >= count,
    tries,
  );
  return body.data;
}
