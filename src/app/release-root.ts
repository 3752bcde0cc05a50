/**
 * Where a copy of Chorus runs from tells whether it is a release folder (docs/update.md): a copy
 * in `<root>/versions/<v>/` belongs to the release folder `<root>`. Its own file, without the
 * update service, because the supervisor process needs it and nothing else of the updater.
 */
import { basename, dirname } from 'node:path';
import { VERSIONS } from '../ops/update/version-store.ts';

/** The release folder this copy belongs to, or null. */
export function releaseRootOf(runningDir: string): string | null {
  const parent = dirname(runningDir.replace(/\/+$/, ''));
  return basename(parent) === VERSIONS ? dirname(parent) : null;
}
