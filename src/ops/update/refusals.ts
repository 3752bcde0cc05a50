/** Why a bot release cannot be applied on this deployment, and what to do instead. */
import type { DeploymentKind } from '../deployment.ts';

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
