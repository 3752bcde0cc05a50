/**
 * How this copy of Chorus was installed. `auto` is decided at run time (src/ops/deployment.ts):
 * a container when `/.dockerenv` exists or the `container` variable is set, a source checkout when
 * the install folder is a git work tree, else a release. Updates and the AI installer follow it:
 * in a container nothing is installed or updated in place.
 */
import { field } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

export const DEPLOYMENT_KINDS = ['auto', 'source', 'release', 'container'] as const;

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
  ],
});

export type DeploymentConfig = SectionValues<typeof deploymentSection>;
