/**
 * Builds the update domain for `chorus serve`: where this copy runs from, whether that is a
 * release folder (`<root>/versions/<v>`, see docs/guide/updates.md), where web-console releases go
 * (data/web-console), and how the deployment is detected.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConfigStore } from '../config/index.ts';
import { detectDeployment } from '../ops/deployment.ts';
import { Git } from '../ops/git.ts';
import type { JobRegistry } from '../ops/jobs/index.ts';
import { UpdateService, type StepHook, type UpdateTiming } from '../ops/update/index.ts';
import type { Clock } from '../common/clock.ts';
import type { Log } from '../common/log.ts';
import { releaseRootOf } from './release-root.ts';

/** Where this copy of Chorus runs from (this file is src/app/ or dist/app/; links resolved by Node). */
const RUNNING_DIR = fileURLToPath(new URL('../../', import.meta.url));
const DOCKERENV = '/.dockerenv';

export interface UpdateWiringOverrides {
  /** The release folder; default the parent of versions/ when this copy runs from versions/<v>. */
  releaseRoot?: string | null;
  runningDir?: string;
  runningVersion?: string;
  dockerenvPath?: string;
  timing?: Partial<UpdateTiming>;
  hook?: StepHook;
}

export interface UpdateWiringOptions {
  config: ConfigStore;
  jobs: JobRegistry;
  log: Log;
  clock: Clock;
  env: Readonly<Record<string, string | undefined>>;
  version: string;
  fetch?: typeof fetch;
  requestRestart?: (container: boolean) => boolean;
  overrides?: UpdateWiringOverrides;
}

export function wireUpdates(options: UpdateWiringOptions): UpdateService {
  const { config, env, overrides = {} } = options;
  const runningDir = overrides.runningDir ?? RUNNING_DIR;
  const facts = {
    dockerenvPath: overrides.dockerenvPath ?? DOCKERENV,
    containerVariable: (env.container ?? '') !== '',
    installDir: runningDir,
    git: new Git(env),
  };
  return new UpdateService({
    settings: () => {
      const values = config.current().deployment;
      return { feedUrl: values.updateFeedUrl, track: values.updateTrack };
    },
    jobs: options.jobs,
    fetch: options.fetch ?? fetch,
    log: options.log,
    now: () => options.clock.nowMs(),
    env,
    deployment: () => detectDeployment(config.current().deployment.deployment, facts),
    runningVersion: overrides.runningVersion ?? options.version,
    runningDir,
    releaseRoot: overrides.releaseRoot !== undefined ? overrides.releaseRoot : releaseRootOf(runningDir),
    webRoot: join(config.current().dataDir, 'web-console'),
    projectDir: config.projectDir,
    ...(overrides.timing ? { timing: overrides.timing } : {}),
    ...(options.requestRestart ? { requestRestart: options.requestRestart } : {}),
    ...(overrides.hook ? { hook: overrides.hook } : {}),
  });
}
