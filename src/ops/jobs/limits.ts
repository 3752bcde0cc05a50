/** Bounds of the job registry (memory per job and jobs kept). */
export interface JobLimits {
  /** Finished jobs kept for late readers; the oldest finished job goes first. */
  jobsKept: number;
  /** Events held per job; past it the oldest are dropped and a late reader is told how many. */
  eventsKept: number;
  /** Output lines kept per job for its snapshot. */
  logLinesKept: number;
  /** Output lines shown in a snapshot (`log_lines`). */
  logLinesShown: number;
}

export const DEFAULT_JOB_LIMITS: JobLimits = {
  jobsKept: 32,
  eventsKept: 5000,
  logLinesKept: 500,
  logLinesShown: 80,
};
