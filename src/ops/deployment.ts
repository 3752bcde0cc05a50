/**
 * How this copy of Chorus is installed, from the CHORUS_DEPLOYMENT setting; `auto` looks: a
 * container when `/.dockerenv` exists or the `container` variable is set (podman, systemd-nspawn),
 * a source checkout when the install folder is a git work tree, else a release. In a container
 * the installation is the image's business: nothing is installed or updated in place.
 */
import { access } from 'node:fs/promises';
import type { Git } from './git.ts';

export type DeploymentKind = 'source' | 'release' | 'container';
export type DeploymentSetting = DeploymentKind | 'auto';

export interface DeploymentFacts {
  /** The container marker file, normally `/.dockerenv`. */
  dockerenvPath: string;
  /** Whether the `container` environment variable is set. */
  containerVariable: boolean;
  /** Where Chorus itself is installed. */
  installDir: string;
  git: Git;
}

export async function detectDeployment(setting: DeploymentSetting, facts: DeploymentFacts): Promise<DeploymentKind> {
  if (setting !== 'auto') return setting;
  if (facts.containerVariable) return 'container';
  if (
    await access(facts.dockerenvPath).then(
      () => true,
      () => false,
    )
  )
    return 'container';
  const inside = await facts.git.output(['rev-parse', '--is-inside-work-tree'], facts.installDir, 10_000);
  return inside === 'true' ? 'source' : 'release';
}
