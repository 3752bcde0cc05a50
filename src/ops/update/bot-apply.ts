/**
 * Applying a bot release to a release deployment (docs/update.md has the layout):
 * download and verify, unpack into a staging folder, install its dependencies there (the current
 * version's `node_modules` is reused, hard-linked, when the lockfile did not change), move it to
 * `versions/<v>`, switch `current` (one rename; `previous` keeps the old version), then run the new
 * version's migrations. A failure before the switch leaves the old version as it was; a failing
 * migration switches back. A kill at any point leaves `current` naming a complete version, which
 * migrates itself when it starts.
 */
import { createHash } from 'node:crypto';
import { access, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand } from '../command.ts';
import { JobFailure, type JobContext, type JobOutcome } from '../jobs/index.ts';
import type { Release } from './feed.ts';
import type { UpdateTiming } from './limits.ts';
import { fetchAndStage, type StepHook } from './steps.ts';
import type { VersionStore } from './version-store.ts';

export interface BotApplyRequest {
  release: Release;
  store: VersionStore;
  downloadDir: string;
  /** The folder of the version that runs now (its node_modules may be reused). */
  runningDir: string;
  /** Where chorus.toml, .env and data live (`--project-dir` of the migration). */
  projectDir: string;
  /** Environment of `npm` and `chorus migrate` (the new version reads the same settings). */
  env: Readonly<Record<string, string | undefined>>;
  fetch: typeof fetch;
  timing: UpdateTiming;
  context: JobContext;
  hook?: StepHook;
}

export async function applyBotRelease(request: BotApplyRequest): Promise<JobOutcome> {
  const { release, store, context } = request;
  const version = release.version.text;
  if ((await store.current()) === version) throw new JobFailure(`version ${version} is already installed`);
  await store.prune();
  const { staged, stagingDir } = await fetchAndStage({
    release,
    asset: release.botAsset,
    root: `chorus-${version}`,
    store,
    downloadDir: request.downloadDir,
    fetch: request.fetch,
    timing: request.timing,
    context,
    band: { from: 10, to: 50 },
    ...(request.hook ? { hook: request.hook } : {}),
  });
  let target: string;
  let reused = false;
  try {
    await checkPackage(staged, version);
    reused = await installDependencies(staged, request);
    context.progress(75, reused ? 'dependencies: node_modules reused (lockfile unchanged)' : 'dependencies installed');
    await request.hook?.('dependencies');
    // A reused node_modules is hard links to files already on disk: only its folders need a flush.
    target = await store.commit(staged, version, { foldersOnlyBelow: reused ? join(staged, 'node_modules') : null });
  } finally {
    await rm(stagingDir, { recursive: true, force: true });
  }
  const from = await store.current();
  await store.switchTo(version);
  context.progress(85, `current → ${version} (previous: ${from ?? 'none'})`);
  await request.hook?.('switched');

  const migrated = await runCommand(
    process.execPath,
    [join(target, 'bin', 'chorus.js'), 'migrate', '--project-dir', request.projectDir],
    {
      cwd: request.projectDir,
      env: request.env,
      timeoutMs: request.timing.migrateTimeoutMs,
      signal: context.signal,
      onLine: (line) => context.line(line),
    },
  );
  if (migrated.code !== 0) {
    if (from !== null) await store.rollback();
    throw new JobFailure(
      `migrations of ${version} failed (${migrated.timedOut ? 'timed out' : `exit ${migrated.code}`}); ` +
        `current is ${from ?? 'unchanged'} again`,
    );
  }
  context.progress(95, 'migrations applied');
  await request.hook?.('migrated');
  return {
    result: { version, tag: release.tag, previous_version: from, dependencies_reused: reused },
    message: `version ${version} installed; it runs after a restart`,
  };
}

async function checkPackage(staged: string, version: string): Promise<void> {
  let parsed: { version?: unknown };
  try {
    parsed = JSON.parse(await readFile(join(staged, 'package.json'), 'utf8')) as { version?: unknown };
  } catch {
    throw new JobFailure('the bot archive has no readable package.json; nothing was changed');
  }
  if (parsed.version !== version)
    throw new JobFailure(
      `the bot archive holds version ${String(parsed.version)}, not ${version}; nothing was changed`,
    );
  if (!(await exists(join(staged, 'bin', 'chorus.js'))))
    throw new JobFailure('the bot archive has no bin/chorus.js; nothing was changed');
}

/** Resolves true when node_modules was reused. */
async function installDependencies(staged: string, request: BotApplyRequest): Promise<boolean> {
  const lockNew = await digest(join(staged, 'package-lock.json'));
  const lockOld = await digest(join(request.runningDir, 'package-lock.json'));
  const modules = join(request.runningDir, 'node_modules');
  if (lockNew !== null && lockNew === lockOld && (await exists(modules))) {
    // Hard links: no copy of the bytes, and npm replaces files rather than writing into them.
    const copied = await runCommand('cp', ['-al', modules, join(staged, 'node_modules')], {
      cwd: staged,
      timeoutMs: request.timing.installTimeoutMs,
      signal: request.context.signal,
    });
    if (copied.code === 0) return true;
    request.context.line(`reusing node_modules failed (${copied.tail.trim()}); running npm ci`);
    await rm(join(staged, 'node_modules'), { recursive: true, force: true });
  }
  const installed = await runCommand('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], {
    cwd: staged,
    env: request.env,
    timeoutMs: request.timing.installTimeoutMs,
    signal: request.context.signal,
    onLine: (line) => request.context.line(line),
  });
  if (installed.code !== 0)
    throw new JobFailure(
      `npm ci failed (${installed.timedOut ? 'timed out' : `exit ${installed.code}`}); nothing was changed`,
    );
  return false;
}

async function digest(file: string): Promise<string | null> {
  try {
    return createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
  } catch {
    return null;
  }
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * Whether the version in `versionDir` can run on the database as it is: its `chorus migrate`
 * refuses a database that holds migrations it does not know (a newer version's) before changing
 * anything, so a rollback over such migrations is caught here rather than at the next start.
 */
export async function migrationsFit(
  versionDir: string,
  projectDir: string,
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs: number,
): Promise<{ ok: boolean; detail: string }> {
  const result = await runCommand(
    process.execPath,
    [join(versionDir, 'bin', 'chorus.js'), 'migrate', '--project-dir', projectDir],
    {
      cwd: projectDir,
      env,
      timeoutMs,
      tailChars: 2000,
    },
  );
  const detail = result.tail.trim().split('\n').filter(Boolean).at(-1) ?? '';
  return { ok: result.code === 0, detail: result.timedOut ? 'timed out' : detail };
}
