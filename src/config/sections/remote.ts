/**
 * The remote budget: how much community traffic this process allows itself (docs/rules.md#remote-budget).
 * Timeouts are floats because sub-second values are useful on a fast hub.
 */
import { field } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

const group = 'Remote budget';

export const remoteSection = defineSection({
  id: 'remote',
  title: 'Remote budget',
  prefix: 'CHORUS_CORPUS_',
  fields: [
    field.int({
      env: 'CHORUS_CORPUS_REMOTE_MAX_CONCURRENT',
      default: 3,
      min: 1,
      max: 64,
      group,
      description: 'Community requests in flight at once.',
    }),
    field.float({
      env: 'CHORUS_CORPUS_REMOTE_TIMEOUT_SEC',
      default: 8,
      min: 0.5,
      max: 120,
      group,
      description: 'Seconds a community read may take.',
    }),
    field.float({
      env: 'CHORUS_CORPUS_CONTRIBUTE_TIMEOUT_SEC',
      default: 12,
      min: 0.5,
      max: 300,
      group,
      description: 'Seconds a community contribution may take.',
    }),
    field.int({
      env: 'CHORUS_CORPUS_WITHDRAWN_POLL_SEC',
      default: 300,
      min: 1,
      max: 86_400,
      group,
      description:
        'Seconds between asks for the answers the community hub withdrew; those imported from it are removed here.',
    }),
    field.int({
      env: 'CHORUS_CORPUS_USAGE_CACHE_SEC',
      default: 120,
      min: 10,
      max: 3600,
      group,
      description: 'Seconds the community usage figures stay cached.',
    }),
  ],
});

export type RemoteBudgetConfig = SectionValues<typeof remoteSection>;
