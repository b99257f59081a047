import { logger } from '../adapters/logging/logger.ts';

/** One step of shutdown, named for the log. */
export interface Cleanup {
  step: string;
  run(): Promise<void> | void;
}

/**
 * The longest one shutdown step may take before the next one starts (the job store's drain, DRAIN_MS, is the longest
 * that is meant to): a step stuck on a database that went away must not keep the process from closing the rest.
 */
export const SHUTDOWN_STEP_MS = 15_000;

/** Runs the steps in order, each bounded by SHUTDOWN_STEP_MS; a failed or stuck step is logged and the rest still run. */
export async function runShutdown(cleanups: Cleanup[]): Promise<void> {
  for (const { step, run } of cleanups.splice(0)) {
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<'stuck'>((resolve) => (timer = setTimeout(() => resolve('stuck'), SHUTDOWN_STEP_MS)));
    try {
      const outcome = await Promise.race([Promise.resolve(run()), stuck]);
      if (outcome === 'stuck') logger.error({ step, waitedMs: SHUTDOWN_STEP_MS }, 'shutdown step did not finish; going on with the next');
    } catch (error) {
      logger.error({ err: error, step }, 'shutdown step failed; going on with the next');
    } finally {
      clearTimeout(timer);
    }
  }
}
