/** Why a bot release cannot be applied on this deployment, and what to do instead. */
import type { DeploymentKind } from '../deployment.ts';

/** The code of each refusal, which the console words (the English text stays for the API and logs). */
export type RefusalCode = 'no_feed' | 'source_deployment' | 'container_image' | 'no_release_folder';

export function botRefusalCode(
  deployment: DeploymentKind,
  configured: boolean,
  releaseFolder: boolean,
): RefusalCode | null {
  if (!configured) return 'no_feed';
  if (deployment === 'source') return 'source_deployment';
  if (!releaseFolder) return deployment === 'container' ? 'container_image' : 'no_release_folder';
  return null;
}

export function botRefusal(deployment: DeploymentKind, configured: boolean, releaseFolder: boolean): string | null {
  if (!configured) return 'no release feed is configured (CHORUS_UPDATE_FEED_URL)';
  if (deployment === 'source')
    return 'this is a source (git) deployment: update it with POST /update/git/bot/apply or git on the host';
  if (!releaseFolder) return layoutRefusal(deployment);
  return null;
}

export function layoutRefusal(deployment?: DeploymentKind): string {
  if (deployment === 'container')
    return 'this container has no release folder (versions/ and current): update the image on the host (docker compose pull && docker compose up -d)';
  return 'Chorus is not installed in a release folder (versions/<version> with a current link); see docs/guide/updates.md';
}
