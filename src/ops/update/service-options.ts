/** What the update service is built with, and what it answers besides the checks (types.ts). */
import type { Log } from '../../common/log.ts';
import type { DeploymentKind } from '../deployment.ts';
import type { Git } from '../git.ts';
import type { JobRegistry } from '../jobs/index.ts';
import type { UpdateTrack } from './feed.ts';
import type { UpdateTiming } from './limits.ts';
import type { StepHook } from './steps.ts';

export interface UpdateSettings {
  feedUrl: string;
  track: UpdateTrack;
}

export interface UpdateServiceOptions {
  settings: () => UpdateSettings;
  jobs: JobRegistry;
  fetch: typeof fetch;
  log: Log;
  /** Unix milliseconds. */
  now: () => number;
  env: Readonly<Record<string, string | undefined>>;
  deployment: () => Promise<DeploymentKind>;
  /** The version of the code that runs now. */
  runningVersion: string;
  /** The folder it runs from. */
  runningDir: string;
  /** The release folder (holding versions/ and current), or null when Chorus is not installed that way. */
  releaseRoot: string | null;
  /** Where web-console releases go (data/web-console). */
  webRoot: string;
  projectDir: string;
  timing?: Partial<UpdateTiming>;
  /** Asks the supervisor for a restart (`container`: by exiting); absent when nothing supervises this process. */
  requestRestart?: (container: boolean) => boolean;
  /** Between apply steps (tests stop the process there). */
  hook?: StepHook;
  git?: Git;
}

/** An update that cannot run here (the console answers 409 with the message). */
export class UpdateRefused extends Error {
  override readonly name = 'UpdateRefused';
}

export interface RollbackOutcome {
  version: string;
  previous_version: string | null;
  message: string;
  restart_scheduled: boolean;
}
