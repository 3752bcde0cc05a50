/**
 * A source deployment (a git checkout) moved to a release tag or a commit: `git fetch origin
 * --tags`, resolve the target, check it out detached (`safe` refuses a checkout with local changes;
 * `force` discards them), `npm ci` when the lockfile changed, `npm run build`. When any step after
 * the checkout fails, the checkout goes back to the commit it was on and is rebuilt, so the folder
 * is what it was. History lists the release tags (newest semantic version first) or the commits of
 * the upstream branch.
 */
import type { Git } from '../git.ts';
import { runCommand } from '../command.ts';
import { JobFailure, type JobContext, type JobOutcome } from '../jobs/index.ts';
import { compareVersions, parseVersion } from './semver.ts';

export type GitMode = 'release' | 'commit';
export type GitStrategy = 'safe' | 'force';

export interface HistoryItem {
  kind: GitMode;
  ref: string;
  short_ref: string;
  date: string;
  message: string;
  is_head: boolean;
  is_latest: boolean;
}

export interface GitHead {
  sha: string;
  short_sha: string;
  tag: string;
  date: string;
  message: string;
}

const SHORT_MS = 15_000;
const FETCH_MS = 300_000;
const SEP = '\x1f';

export async function gitHead(git: Git, dir: string): Promise<GitHead | null> {
  const line = await git.output(['log', '-1', `--format=%H${SEP}%cI${SEP}%s`], dir, SHORT_MS);
  if (!line) return null;
  const [sha = '', date = '', message = ''] = line.split(SEP);
  const tag = (await git.output(['describe', '--tags', '--exact-match', 'HEAD'], dir, SHORT_MS)) ?? '';
  return { sha, short_sha: sha.slice(0, 7), tag, date, message };
}

/** The upstream of the checkout: its tracking branch, else origin's default branch. */
async function upstream(git: Git, dir: string): Promise<string | null> {
  for (const ref of ['@{u}', 'origin/HEAD', 'origin/main', 'origin/master']) {
    if ((await git.output(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], dir, SHORT_MS)) !== null) return ref;
  }
  return null;
}

export async function gitHistory(
  git: Git,
  dir: string,
  mode: GitMode,
  limit: number,
): Promise<{ items: HistoryItem[]; head: GitHead | null; fetch_error: string | null }> {
  const fetched = await git.attempt(['fetch', '--tags', 'origin'], dir, FETCH_MS);
  const head = await gitHead(git, dir);
  let items: HistoryItem[];
  if (mode === 'release') {
    const tags = ((await git.output(['tag', '--list'], dir, SHORT_MS)) ?? '')
      .split('\n')
      .map((tag) => ({ tag, version: parseVersion(tag) }))
      .filter((item): item is { tag: string; version: NonNullable<typeof item.version> } => item.version !== null)
      .sort((a, b) => compareVersions(b.version, a.version))
      .slice(0, limit);
    items = [];
    for (const { tag } of tags) {
      const line =
        (await git.output(['log', '-1', `--format=%H${SEP}%cI${SEP}%s`, `${tag}^{commit}`], dir, SHORT_MS)) ?? '';
      const [sha = '', date = '', message = ''] = line.split(SEP);
      items.push({
        kind: 'release',
        ref: tag,
        short_ref: tag,
        date,
        message,
        is_head: sha === head?.sha,
        is_latest: false,
      });
    }
  } else {
    const from = await upstream(git, dir);
    const log = from
      ? ((await git.output(['log', from, `-n${limit}`, `--format=%H${SEP}%cI${SEP}%s`], dir, SHORT_MS)) ?? '')
      : '';
    items = log
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [sha = '', date = '', message = ''] = line.split(SEP);
        return {
          kind: 'commit',
          ref: sha,
          short_ref: sha.slice(0, 7),
          date,
          message,
          is_head: sha === head?.sha,
          is_latest: false,
        };
      });
  }
  if (items[0]) items[0].is_latest = true;
  return { items, head, fetch_error: fetched.ok ? null : fetched.text };
}

export interface GitApplyRequest {
  git: Git;
  dir: string;
  mode: GitMode;
  /** A tag (release) or a commit-ish (commit); '' = the newest release tag / the upstream branch. */
  ref: string;
  strategy: GitStrategy;
  env: Readonly<Record<string, string | undefined>>;
  installTimeoutMs: number;
  context: JobContext;
}

export async function applyGitTarget(request: GitApplyRequest): Promise<JobOutcome> {
  const { git, dir, context } = request;
  if ((await git.output(['rev-parse', '--is-inside-work-tree'], dir, SHORT_MS)) !== 'true')
    throw new JobFailure(`${dir} is not a git work tree`);
  const dirty = ((await git.output(['status', '--porcelain'], dir, SHORT_MS)) ?? '').split('\n').filter(Boolean);
  if (dirty.length > 0 && request.strategy === 'safe')
    throw new JobFailure(
      `the checkout has ${dirty.length} changed file(s): commit or stash them, or use the force strategy; nothing was changed`,
    );
  context.progress(15, 'git fetch origin --tags');
  const fetched = await git.run(['fetch', '--tags', 'origin'], {
    cwd: dir,
    timeoutMs: FETCH_MS,
    signal: context.signal,
    onLine: (line) => context.line(line),
  });
  if (fetched.code !== 0) throw new JobFailure(`git fetch failed (${fetched.tail.trim().split('\n').at(-1) ?? ''})`);
  const target = await resolveTarget(request);
  const old = await gitHead(git, dir);
  if (old === null) throw new JobFailure('the checkout has no commit');
  if (old.sha === target.sha)
    return { result: { ref: target.label, sha: target.sha, changed: false }, message: `already at ${target.label}` };
  context.progress(30, `checking out ${target.label} (${target.sha.slice(0, 7)}) from ${old.short_sha}`);
  const lockChanged =
    (await git.output(['diff', '--quiet', old.sha, target.sha, '--', 'package-lock.json'], dir, SHORT_MS)) === null;

  const checkout = async (sha: string) => {
    const args =
      request.strategy === 'force' ? ['checkout', '--force', '--detach', sha] : ['checkout', '--detach', sha];
    return git.attempt(args, dir, SHORT_MS * 4);
  };
  const moved = await checkout(target.sha);
  if (!moved.ok) throw new JobFailure(`git checkout failed (${moved.text}); nothing was changed`);
  try {
    await prepare(request, lockChanged, 45);
  } catch (error) {
    context.progress(80, `going back to ${old.short_sha}`);
    const back = await git.attempt(['checkout', '--force', '--detach', old.sha], dir, SHORT_MS * 4);
    let rebuilt = 'not rebuilt';
    if (back.ok) {
      try {
        await prepare(request, lockChanged, 85);
        rebuilt = 'rebuilt';
      } catch (again) {
        rebuilt = `rebuild failed: ${again instanceof Error ? again.message : String(again)}`;
      }
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new JobFailure(
      back.ok
        ? `${reason}; the checkout is back at ${old.short_sha} (${rebuilt})`
        : `${reason}; going back to ${old.short_sha} failed too (${back.text})`,
      { ref: target.label, sha: target.sha, previous_sha: old.sha, rolled_back: back.ok },
    );
  }
  return {
    result: {
      ref: target.label,
      sha: target.sha,
      previous_sha: old.sha,
      changed: true,
      dependencies_installed: lockChanged,
    },
    message: `checkout is at ${target.label} (${target.sha.slice(0, 7)}); it runs after a restart`,
  };
}

async function resolveTarget(request: GitApplyRequest): Promise<{ sha: string; label: string }> {
  const { git, dir, ref, mode } = request;
  let label = ref;
  if (mode === 'release') {
    if (ref === '') {
      const tags = ((await git.output(['tag', '--list'], dir, SHORT_MS)) ?? '')
        .split('\n')
        .map((tag) => ({ tag, version: parseVersion(tag) }))
        .filter((item) => item.version !== null && item.version.prerelease.length === 0)
        .sort((a, b) => compareVersions(b.version!, a.version!));
      if (!tags[0]) throw new JobFailure('the repository has no release tag');
      label = tags[0].tag;
    } else if (parseVersion(ref) === null) throw new JobFailure(`ref: ${ref} is not a release tag (v1.2.3)`);
    const sha = await git.output(['rev-parse', '--verify', '--quiet', `refs/tags/${label}^{commit}`], dir, SHORT_MS);
    if (!sha) throw new JobFailure(`ref: no tag ${label} in the repository`);
    return { sha, label };
  }
  if (ref === '') {
    const from = await upstream(git, dir);
    if (from === null) throw new JobFailure('the checkout has no upstream branch');
    label = from;
  }
  const sha = await git.output(['rev-parse', '--verify', '--quiet', `${label}^{commit}`], dir, SHORT_MS);
  if (!sha) throw new JobFailure(`ref: cannot resolve ${label} to a commit`);
  return { sha, label };
}

/** `npm ci` when the lockfile changed, then `npm run build`; throws on failure. */
async function prepare(request: GitApplyRequest, install: boolean, percent: number): Promise<void> {
  const { context, dir } = request;
  const steps: [string, string[]][] = [
    ...(install ? ([['npm ci', ['ci', '--no-audit', '--no-fund']]] as [string, string[]][]) : []),
    ['npm run build', ['run', 'build']],
  ];
  for (const [name, args] of steps) {
    context.progress(percent, name);
    const result = await runCommand('npm', args, {
      cwd: dir,
      env: request.env,
      timeoutMs: request.installTimeoutMs,
      signal: context.signal,
      onLine: (line) => context.line(line),
    });
    if (result.code !== 0)
      throw new JobFailure(`${name} failed (${result.timedOut ? 'timed out' : `exit ${result.code}`})`);
    percent += 15;
  }
}
