/**
 * The AI service's source checkout: Chorus's managed one in `data/runtimes/ai` (cloned here and
 * marked as its own), or one an operator placed beside the install folder. Also the upstream check
 * that tells whether the managed checkout is behind its remote.
 */
import { access, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Git } from '../git.ts';
import { BOOTSTRAP_SCRIPT, GIT_TIMEOUT_MS, MANAGED_MARKER } from './limits.ts';

export interface CheckoutFacts {
  root: string;
  /** The folder exists and is not empty. */
  occupied: boolean;
  /** It is a git work tree (has `.git`). */
  git: boolean;
  /** It holds the bootstrap script. */
  script: boolean;
  /** Chorus cloned it (marker file). */
  managed: boolean;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

export async function inspectCheckout(root: string): Promise<CheckoutFacts> {
  const entries = await readdir(root).catch(() => null);
  return {
    root,
    occupied: entries !== null && entries.length > 0,
    git: await exists(join(root, '.git')),
    script: await exists(join(root, BOOTSTRAP_SCRIPT)),
    managed: await exists(join(root, MANAGED_MARKER)),
  };
}

export interface UpstreamCheck {
  has_update: boolean | null;
  installed_ref: string | null;
  latest_ref: string | null;
  upstream: string | null;
  error: string | null;
}

const short = (sha: string | null) => (sha === null ? null : sha.slice(0, 12));

/** The branch a fast-forward follows: the tracked one, else origin/main, else origin/master. */
export async function upstreamRef(git: Git, root: string): Promise<string | null> {
  const tracked = await git.output(
    ['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{u}'],
    root,
    GIT_TIMEOUT_MS.local,
  );
  if (tracked) return tracked;
  for (const candidate of ['origin/main', 'origin/master']) {
    if ((await git.output(['rev-parse', '--verify', '--quiet', candidate], root, GIT_TIMEOUT_MS.local)) !== null) {
      return candidate;
    }
  }
  return null;
}

/** Fetches the remote and compares: behind (a fast-forward exists) means an update. */
export async function checkUpstream(git: Git, root: string): Promise<UpstreamCheck> {
  const head = await git.output(['rev-parse', 'HEAD'], root, GIT_TIMEOUT_MS.local);
  const fetched = await git.attempt(['fetch', '--prune', 'origin'], root, GIT_TIMEOUT_MS.statusFetch);
  const upstream = await upstreamRef(git, root);
  const latest = upstream ? await git.output(['rev-parse', upstream], root, GIT_TIMEOUT_MS.local) : null;
  const base = { installed_ref: short(head), latest_ref: short(latest), upstream };
  if (!fetched.ok) return { ...base, has_update: null, error: `git fetch failed: ${fetched.text}` };
  if (head === null || latest === null) {
    return {
      ...base,
      has_update: null,
      error: upstream ? 'cannot resolve the installed or the latest commit' : 'no upstream branch',
    };
  }
  if (head === latest) return { ...base, has_update: false, error: null };
  const behind = (await git.output(['merge-base', '--is-ancestor', head, latest], root, GIT_TIMEOUT_MS.local)) !== null;
  return { ...base, has_update: behind, error: null };
}
