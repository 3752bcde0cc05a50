/**
 * The steps of an install job: clone the AI repository into the managed folder, bring the managed
 * checkout up to date (fetch, fast-forward, submodules), run its bootstrap script. Every output
 * line becomes a progress event (with the token and URL credentials masked); a step that cannot
 * go on throws a JobFailure whose message says why.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { childEnvironment, runCommand } from '../command.ts';
import type { Git } from '../git.ts';
import { JobFailure, type JobContext } from '../jobs/index.ts';
import { inspectCheckout, upstreamRef } from './checkout.ts';
import {
  BOOTSTRAP_OUTPUT_TAIL_CHARS,
  BOOTSTRAP_SCRIPT,
  BOOTSTRAP_TIMEOUT_MS,
  GIT_TIMEOUT_MS,
  INSTALL_PROGRESS,
  MANAGED_MARKER,
} from './limits.ts';

export interface StepEnvironment {
  git: Git;
  /** The process environment; the bootstrap gets it without Chorus's own settings (see bootstrapEnvironment). */
  env: Readonly<Record<string, string | undefined>>;
  /** Masks secrets in an output line. */
  redact: (line: string) => string;
}

/** Percent for the n-th output line of a step: from `start`, one per line, never past `end`. */
const lineProgress = (start: number, end: number) => {
  let index = 0;
  return () => Math.min(end, start + index++);
};

export async function cloneStep(
  context: JobContext,
  step: StepEnvironment,
  repoUrl: string,
  target: string,
): Promise<{ ai_root: string }> {
  const facts = await inspectCheckout(target);
  if (facts.occupied) {
    throw new JobFailure(`${target} exists and is not empty; move it away to clone the AI repository there`);
  }
  await mkdir(dirname(target), { recursive: true });
  context.progress(INSTALL_PROGRESS.cloneStart, `cloning ${step.redact(repoUrl)}`);
  const percent = lineProgress(INSTALL_PROGRESS.cloneStart, INSTALL_PROGRESS.fetchedOrCloned - 1);
  const clone = await step.git.run(['clone', '--depth', '1', '--progress', '--', repoUrl, target], {
    cwd: dirname(target),
    timeoutMs: GIT_TIMEOUT_MS.clone,
    signal: context.signal,
    onLine: (line) => context.line(step.redact(line), percent()),
  });
  if (clone.code !== 0) {
    await rm(target, { recursive: true, force: true });
    throw new JobFailure(`git clone failed${step.redact(describeEnd(clone))}`);
  }
  if (!(await inspectCheckout(target)).script) {
    await rm(target, { recursive: true, force: true });
    throw new JobFailure(
      `the cloned repository has no ${BOOTSTRAP_SCRIPT}; is CHORUS_AI_REPO_URL the AI service's repository?`,
    );
  }
  await writeFile(join(target, MANAGED_MARKER), `${JSON.stringify({ managed_by: 'chorus' })}\n`);
  context.progress(INSTALL_PROGRESS.fetchedOrCloned, `cloned into ${target}`);
  return { ai_root: target };
}

export interface UpdateOutcome {
  before: string | null;
  after: string | null;
  changed: boolean;
  upstream: string;
  submodule_ok: boolean;
  submodule_error?: string;
}

export async function updateStep(context: JobContext, step: StepEnvironment, root: string): Promise<UpdateOutcome> {
  const before = await step.git.output(['rev-parse', 'HEAD'], root, GIT_TIMEOUT_MS.local);
  context.progress(INSTALL_PROGRESS.updateStart, 'fetching from origin');
  const percent = lineProgress(INSTALL_PROGRESS.updateStart, INSTALL_PROGRESS.fetchedOrCloned - 1);
  const run = (args: string[], timeoutMs: number) =>
    step.git.run(args, {
      cwd: root,
      timeoutMs,
      signal: context.signal,
      onLine: (line) => context.line(step.redact(line), percent()),
    });
  const fetched = await run(['fetch', '--prune', '--progress', 'origin'], GIT_TIMEOUT_MS.fetch);
  if (fetched.code !== 0) throw new JobFailure(`git fetch failed${step.redact(describeEnd(fetched))}`);
  const upstream = await upstreamRef(step.git, root);
  if (upstream === null)
    throw new JobFailure('the managed checkout has no upstream branch (origin/main or origin/master)');
  const merged = await run(['merge', '--ff-only', '--autostash', upstream], GIT_TIMEOUT_MS.local);
  if (merged.code !== 0) {
    throw new JobFailure(
      `cannot fast-forward to ${upstream} (local commits or changes in the way)${step.redact(describeEnd(merged))}`,
    );
  }
  const submodules = await run(['submodule', 'update', '--init', '--recursive'], GIT_TIMEOUT_MS.fetch);
  const after = await step.git.output(['rev-parse', 'HEAD'], root, GIT_TIMEOUT_MS.local);
  const outcome: UpdateOutcome = {
    before,
    after,
    changed: before !== after,
    upstream,
    submodule_ok: submodules.code === 0,
  };
  if (submodules.code !== 0) {
    outcome.submodule_error = `git submodule update failed${step.redact(describeEnd(submodules))}`;
    context.line(`warning: ${outcome.submodule_error}`);
  }
  context.progress(
    INSTALL_PROGRESS.fetchedOrCloned,
    outcome.changed ? `updated to ${after?.slice(0, 12) ?? '?'}` : 'already up to date',
  );
  return outcome;
}

export interface BootstrapOptions {
  noStart: boolean;
  useGpu: boolean;
  /** Port of this Chorus, which the AI service calls back. */
  botPort: number;
  /** CHORUS_AI_API_TOKEN for the runtime it starts ('' for none). */
  token: string;
}

export interface BootstrapOutcome {
  ai_root: string;
  exit_code: number;
  output_tail: string;
}

export async function bootstrapStep(
  context: JobContext,
  step: StepEnvironment,
  root: string,
  options: BootstrapOptions,
): Promise<BootstrapOutcome> {
  if (!(await inspectCheckout(root)).script) throw new JobFailure(`${BOOTSTRAP_SCRIPT} not found in ${root}`);
  const args = [
    BOOTSTRAP_SCRIPT,
    ...(options.noStart ? ['--no-start'] : []),
    '--bot-host',
    '127.0.0.1',
    '--bot-port',
    String(options.botPort),
  ];
  const header = `running: bash ${args.join(' ')}\nAI checkout: ${root}`;
  context.progress(INSTALL_PROGRESS.bootstrapStart, `running ${BOOTSTRAP_SCRIPT}`);
  const percent = lineProgress(INSTALL_PROGRESS.bootstrapStart, INSTALL_PROGRESS.bootstrapEnd);
  const result = await runCommand('bash', args, {
    cwd: root,
    env: bootstrapEnvironment(step.env, options),
    signal: context.signal,
    timeoutMs: BOOTSTRAP_TIMEOUT_MS,
    tailChars: BOOTSTRAP_OUTPUT_TAIL_CHARS,
    onLine: (line) => context.line(step.redact(line), percent()),
  });
  const outputTail = `${header}\n${step.redact(result.tail)}`.slice(-BOOTSTRAP_OUTPUT_TAIL_CHARS);
  const outcome = { ai_root: root, exit_code: result.code ?? -1, output_tail: outputTail };
  if (result.startError !== null) throw new JobFailure(`cannot run bash: ${result.startError}`, outcome);
  if (result.timedOut) throw new JobFailure(`bootstrap timed out after ${BOOTSTRAP_TIMEOUT_MS / 60_000} min`, outcome);
  if (result.aborted) throw new JobFailure('bootstrap stopped: the service is shutting down', outcome);
  if (result.code !== 0) {
    throw new JobFailure(`bootstrap exited with code ${result.code ?? 'none (killed by a signal)'}`, outcome);
  }
  context.progress(INSTALL_PROGRESS.bootstrapEnd, 'bootstrap finished');
  return { ...outcome, exit_code: 0 };
}

/**
 * What the bootstrap, and the runtime it starts, run with: the process environment less Chorus's
 * settings (its console tokens, OneBot and community tokens, database URL), plus the one setting
 * the AI side shares, its Bearer token (docs/rules.md#child-env).
 */
function bootstrapEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  options: Pick<BootstrapOptions, 'token' | 'useGpu'>,
): Record<string, string | undefined> {
  return {
    ...childEnvironment(env),
    PYTHONUTF8: '1',
    PYTHONIOENCODING: 'utf-8',
    ...(options.token !== '' ? { CHORUS_AI_API_TOKEN: options.token } : {}),
    // The AI repository's bootstrap script reads this name to install GPU builds.
    ...(options.useGpu ? { PALLAS_GPU: '1' } : {}),
  };
}

function describeEnd(result: {
  code: number | null;
  timedOut: boolean;
  aborted: boolean;
  startError: string | null;
  tail: string;
}): string {
  if (result.startError !== null) return `: ${result.startError}`;
  if (result.timedOut) return ': timed out';
  if (result.aborted) return ': stopped';
  const last = result.tail.split('\n').filter(Boolean).at(-1);
  return ` (exit code ${result.code ?? '?'})${last ? `: ${last}` : ''}`;
}
