import { PostgresJobRepository, type PostgresBackendConfig } from '@agendajs/postgres-backend';
import type { JobParameters } from 'agenda';

/**
 * Agenda's job table, with the one call Agenda does not await made safe. Agenda (6.2.6, JobProcessor) calls `unlockJob`
 * and moves on when a job it locked is due more than processEvery later (the clock moved back between its lookup and
 * its processing, as a test's faked clock does) or a lock limit is reached. A failure there was an unhandled rejection
 * (fatal to Node), and a lookup still in flight when the job store closed went on to ask the unlock on the ended pool.
 *
 * Here an unlock's failure goes to `onError`, and `settle()` stops new unlocks (the lock lapses after lockLifetime, as
 * a stopped worker's does) and waits for those in flight, so the pool ends after them.
 */
export class SettlingJobRepository extends PostgresJobRepository {
  #closed = false;
  readonly #unlocks = new Set<Promise<void>>();
  readonly #onError: (error: unknown) => void;

  constructor(config: PostgresBackendConfig, onError: (error: unknown) => void) {
    super(config);
    this.#onError = onError;
  }

  override unlockJob(job: JobParameters): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const unlock = super
      .unlockJob(job)
      .catch((error: unknown) => {
        this.#onError(error);
      })
      .finally(() => this.#unlocks.delete(unlock));
    this.#unlocks.add(unlock);
    return unlock;
  }

  /** Called by Agenda's stop for the jobs it locked but had not started: a failure is reported, and close goes on. */
  override async unlockJobs(jobIds: Parameters<PostgresJobRepository['unlockJobs']>[0]): Promise<void> {
    await super.unlockJobs(jobIds).catch((error: unknown) => this.#onError(error));
  }

  async settle(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#unlocks);
  }
}
