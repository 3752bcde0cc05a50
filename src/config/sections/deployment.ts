/**
 * How this copy of Chorus was installed. `auto` is decided at run time (src/ops/deployment.ts):
 * a container when `/.dockerenv` exists or the `container` variable is set, a source checkout when
 * the install folder is a git work tree, else a release. Updates and the AI installer follow it:
 * in a container nothing is installed or updated in place.
 */
import { field, parsedBad, parsedOk, type Parsed } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

export const DEPLOYMENT_KINDS = ['auto', 'source', 'release', 'container'] as const;

export const UPDATE_TRACKS = ['stable', 'prerelease'] as const;

/** Blank (no feed) or an http(s) URL. */
export function checkFeedUrl(text: string): Parsed<string> {
  const url = text.trim();
  if (url === '') return parsedOk('');
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsedOk(url);
  } catch {
    // Reported below.
  }
  return parsedBad('expected an http(s) URL of a releases JSON feed, or empty');
}

export const deploymentSection = defineSection({
  id: 'deployment',
  title: 'Deployment',
  prefix: 'CHORUS_',
  fields: [
    field.enum({
      env: 'CHORUS_DEPLOYMENT',
      choices: DEPLOYMENT_KINDS,
      default: 'auto',
      // Describes the installation itself; the console must not be able to talk it out of a container.
      consoleSettable: false,
      group: 'Deployment',
      description: 'How Chorus is installed: auto, source (git checkout), release (unpacked archive) or container.',
    }),
    field.string({
      env: 'CHORUS_UPDATE_FEED_URL',
      default: '',
      check: checkFeedUrl,
      // Where code is downloaded from: only the operator's own files may name it.
      consoleSettable: false,
      group: 'Updates',
      description:
        "Releases feed in the shape of GitHub's releases JSON (…/releases); empty: update checks answer configured=false.",
    }),
    field.enum({
      env: 'CHORUS_UPDATE_TRACK',
      choices: UPDATE_TRACKS,
      default: 'stable',
      group: 'Updates',
      description: 'Which releases count as updates: stable only, or pre-releases too.',
    }),
  ],
});

export type DeploymentConfig = SectionValues<typeof deploymentSection>;
