/**
 * Builds the AI extension for `chorus serve`: where its folders are on this machine (the managed
 * checkout in the data folder, a checkout beside the install folder, the container's shared log
 * volume), how the deployment is detected, and the environment its programs run with.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConfigStore } from '../config/index.ts';
import { AiExtension, type AiTiming } from '../ops/ai/index.ts';
import { detectDeployment, type DeploymentFacts } from '../ops/deployment.ts';
import { Git } from '../ops/git.ts';
import type { JobRegistry } from '../ops/jobs/index.ts';
import type { Clock } from '../common/clock.ts';
import type { Log } from '../common/log.ts';

/** Where Chorus itself is installed (this file is src/app/ or dist/app/). */
const INSTALL_DIR = fileURLToPath(new URL('../../', import.meta.url));
const SHARED_LOG_DIR = '/ai-logs';
const DOCKERENV = '/.dockerenv';

export interface AiWiringOverrides {
  /** The container marker checked by CHORUS_DEPLOYMENT=auto (default /.dockerenv). */
  dockerenvPath?: string;
  /** The shared log volume (default /ai-logs when it is a folder); null for none. */
  sharedLogDir?: string | null;
  /** A checkout beside the install folder (default ../Pallas-Bot-AI); null for none. */
  siblingRoot?: string | null;
  timing?: Partial<AiTiming>;
}

export interface AiWiringOptions {
  config: ConfigStore;
  jobs: JobRegistry;
  log: Log;
  clock: Clock;
  env: Readonly<Record<string, string | undefined>>;
  fetch?: typeof fetch;
  overrides?: AiWiringOverrides;
}

/** What the deployment kind is detected from (also the console's GET /system). */
export function deploymentFacts(
  env: Readonly<Record<string, string | undefined>>,
  git: Git,
  overrides: AiWiringOverrides = {},
): DeploymentFacts {
  return {
    dockerenvPath: overrides.dockerenvPath ?? DOCKERENV,
    containerVariable: (env.container ?? '') !== '',
    installDir: INSTALL_DIR,
    git,
  };
}

export function wireAiExtension(options: AiWiringOptions): AiExtension {
  const { config, env, overrides = {} } = options;
  const git = new Git(env);
  const facts = deploymentFacts(env, git, overrides);
  return new AiExtension({
    settings: config,
    jobs: options.jobs,
    fetch: options.fetch ?? fetch,
    log: options.log,
    now: () => options.clock.nowMs(),
    env,
    git,
    deployment: () => detectDeployment(config.current().deployment.deployment, facts),
    baseDir: config.projectDir,
    siblingRoot:
      overrides.siblingRoot !== undefined ? overrides.siblingRoot : resolve(INSTALL_DIR, '..', 'Pallas-Bot-AI'),
    sharedLogDir:
      overrides.sharedLogDir !== undefined
        ? overrides.sharedLogDir
        : isDirectory(SHARED_LOG_DIR)
          ? SHARED_LOG_DIR
          : null,
    ...(overrides.timing ? { timing: overrides.timing } : {}),
  });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
