/**
 * Runs long operations as jobs: at most one running job per kind (a second start is refused with
 * `JobBusyError`, which the console turns into a 409), each answered at once with its id while the
 * work goes on in the background. The registry owns what it started: `stop` aborts the running
 * jobs and waits for them, with a deadline.
 */
import { randomUUID } from 'node:crypto';
import { TaskSet } from '../../common/task-set.ts';
import { Job, type JobText } from './job.ts';
import { DEFAULT_JOB_LIMITS, type JobLimits } from './limits.ts';
import { errorMessage } from '../../common/errors.ts';

/** What a job's work gets: where to report and when to stop. */
export interface JobContext {
  /** `text`: the message as a code with parameters, for the console to word (JobText). */
  progress(percent: number, message: string, text?: JobText): void;
  line(text: string, percent?: number): void;
  /** Aborted when the registry stops. */
  readonly signal: AbortSignal;
}

/**
 * Thrown by the work to end the job as failed with this message and a partial result; any other
 * error fails the job with its message.
 */
export class JobFailure extends Error {
  override readonly name = 'JobFailure';
  constructor(
    message: string,
    readonly result: Record<string, unknown> | null = null,
    readonly text?: JobText,
  ) {
    super(message);
  }
}

export class JobBusyError extends Error {
  override readonly name = 'JobBusyError';
  constructor(readonly running: Job) {
    super(`a ${running.kind} job is already running (job ${running.id})`);
  }
}

export interface JobOutcome {
  result: Record<string, unknown>;
  /** Final message, e.g. "bootstrap finished". */
  message: string;
  /** The final message as a code with parameters. */
  text?: JobText;
}

export interface JobRegistryOptions {
  /** Unix milliseconds. */
  now: () => number;
  limits?: Partial<JobLimits>;
  /** Told when a job's work throws something other than a JobFailure (a bug, not a failed step). */
  onUnexpected?: (job: Job, error: unknown) => void;
}

export class JobRegistry {
  readonly #jobs = new Map<string, Job>();
  readonly #aborts = new Map<string, AbortController>();
  readonly #tasks: TaskSet;
  readonly #options: JobRegistryOptions;
  readonly #limits: JobLimits;
  #stopped = false;

  constructor(options: JobRegistryOptions) {
    this.#options = options;
    this.#limits = { ...DEFAULT_JOB_LIMITS, ...options.limits };
    // Work never rejects (start catches); this only guards the bookkeeping.
    this.#tasks = new TaskSet(() => undefined);
  }

  /** Starts `work` as a job of `kind`; throws JobBusyError when one of that kind is running. */
  start(kind: string, action: string | null, work: (context: JobContext) => Promise<JobOutcome>): Job {
    if (this.#stopped) throw new Error('the job registry is stopped');
    const running = this.active(kind);
    if (running) throw new JobBusyError(running);
    const job = new Job({ id: randomUUID(), kind, action, now: this.#options.now, limits: this.#limits });
    const abort = new AbortController();
    this.#jobs.set(job.id, job);
    this.#aborts.set(job.id, abort);
    this.#prune();
    const context: JobContext = {
      progress: (percent, message, text) => job.progress(percent, message, text),
      line: (text, percent) => job.line(text, percent),
      signal: abort.signal,
    };
    this.#tasks.run(`job ${job.id}`, async () => {
      try {
        job.progress(5, 'started');
        const outcome = await work(context);
        if (abort.signal.aborted) job.fail('stopped: the service is shutting down');
        else job.succeed(outcome.result, outcome.message, outcome.text);
      } catch (error) {
        if (error instanceof JobFailure) job.fail(error.message, error.result, error.text);
        else {
          this.#options.onUnexpected?.(job, error);
          job.fail(abort.signal.aborted ? 'stopped: the service is shutting down' : describe(error));
        }
      } finally {
        this.#aborts.delete(job.id);
      }
    });
    return job;
  }

  get(id: string): Job | undefined {
    return this.#jobs.get(id);
  }

  /** The running job of `kind`, if any. */
  active(kind: string): Job | undefined {
    for (const job of this.#jobs.values()) if (job.kind === kind && !job.finished) return job;
    return undefined;
  }

  /** The most recent job of `kind`, running or finished. */
  latest(kind: string): Job | undefined {
    let found: Job | undefined;
    for (const job of this.#jobs.values()) if (job.kind === kind) found = job;
    return found;
  }

  /** Aborts the running jobs and waits for them; resolves with how many were still running at the deadline. */
  async stop(deadlineMs: number): Promise<number> {
    this.#stopped = true;
    for (const abort of this.#aborts.values()) abort.abort();
    return this.#tasks.drain(deadlineMs);
  }

  #prune(): void {
    const finished = [...this.#jobs.values()].filter((job) => job.finished);
    let excess = this.#jobs.size - this.#limits.jobsKept;
    for (const job of finished) {
      if (excess <= 0) break;
      this.#jobs.delete(job.id);
      excess--;
    }
  }
}

function describe(error: unknown): string {
  return errorMessage(error);
}
