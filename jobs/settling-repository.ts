import { PostgresJobRepository, type PostgresBackendConfig } from '@agendajs/postgres-backend';
import type { JobParameters } from 'agenda';

type LookupArguments = Parameters<PostgresJobRepository['getNextJobToRun']>;

/**
 * Agenda's job table, made safe to close while Agenda is still at work.
 *
 * The one call Agenda does not await: Agenda (6.2.6, JobProcessor) calls `unlockJob` and moves on when a job it
 * locked is due more than processEvery later (the clock moved back between its lookup and its processing, as a test's
 * faked clock does) or a lock limit is reached. A failure there was an unhandled rejection (fatal to Node). Here an
 * unlock's failure goes to `onError`, and `settle()` stops new unlocks (the lock lapses after lockLifetime, as a
 * stopped worker's does) and waits for those in flight, so the pool ends after them.
 *
 * Lookups in flight when the close begins: Agenda's stop unlocks the jobs it holds at that moment, so a job whose
 * lookup (find and lock) answered after it was locked by nobody who would run or unlock it, out of every worker's
 * reach for the lock lifetime. From `stopLocking()` on, no lookup is sent, a lookup in flight unlocks what it locked
 * instead of handing it to Agenda, and `settle()` waits for those too.
 */
export class SettlingJobRepository extends PostgresJobRepository {
  #stopping = false;
  #closed = false;
  readonly #unlocks = new Set<Promise<void>>();
  readonly #lookups = new Set<Promise<unknown>>();
  readonly #onError: (error: unknown) => void;

  constructor(config: PostgresBackendConfig, onError: (error: unknown) => void) {
    super(config);
    this.#onError = onError;
  }

  override getNextJobToRun(...args: LookupArguments): Promise<JobParameters | undefined> {
    if (this.#stopping) return Promise.resolve(undefined);
    const lookup = this.#lockUnlessStopping(args);
    // Tracked until it ends either way; its failure is Agenda's to hear (it reports it as an 'error' event).
    const ended: Promise<unknown> = lookup.then(
      () => this.#lookups.delete(ended),
      () => this.#lookups.delete(ended),
    );
    this.#lookups.add(ended);
    return lookup;
  }

  async #lockUnlessStopping(args: LookupArguments): Promise<JobParameters | undefined> {
    const job = await super.getNextJobToRun(...args);
    if (!job?._id || !this.#stopping) return job;
    await this.unlockJobs([job._id]);
    return undefined;
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

  /** The close has begun: no more lookups, and one in flight gives back what it locks. */
  stopLocking(): void {
    this.#stopping = true;
  }

  /** Waits for the lookups and unlocks in flight; none start after it. */
  async settle(): Promise<void> {
    this.#stopping = true;
    this.#closed = true;
    await Promise.all([...this.#lookups, ...this.#unlocks]);
  }
}
