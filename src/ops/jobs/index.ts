export { Job, type JobEvent, type JobListener, type JobPhase, type JobSnapshot, type JobText } from './job.ts';
export {
  JobBusyError,
  JobFailure,
  JobRegistry,
  type JobContext,
  type JobOutcome,
  type JobRegistryOptions,
} from './job-registry.ts';
export { DEFAULT_JOB_LIMITS, type JobLimits } from './limits.ts';
