/**
 * Reply-path caches and caps (docs/rules.md#cache-snapshot; bounds from docs/rules.md#cache-find, #cache-snapshot).
 * Saving these clears the reply caches, so they are their own section.
 */
import { field } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

const group = 'Reply performance';

export const performanceSection = defineSection({
  id: 'performance',
  title: 'Reply performance',
  prefix: 'CHORUS_CORPUS_',
  fields: [
    field.int({
      env: 'CHORUS_CORPUS_REPLY_MESSAGES_CAP',
      default: 16,
      min: 1,
      max: 256,
      group,
      description: 'Newest messages loaded per answer in a reply snapshot.',
    }),
    field.int({
      env: 'CHORUS_CORPUS_REPLY_ANSWERS_CAP',
      default: 128,
      min: 32,
      max: 4096,
      group,
      description: 'Top answers loaded per context in a reply snapshot.',
    }),
    field.int({
      env: 'CHORUS_CORPUS_FIND_CACHE_SEC',
      default: 45,
      min: 5,
      max: 600,
      group,
      description: 'Seconds a find result (hit or miss) stays cached.',
    }),
    field.int({
      env: 'CHORUS_CORPUS_FIND_CACHE_MAX',
      default: 50000,
      min: 1000,
      max: 200000,
      group,
      description: 'Entries per find cache before it is pruned.',
    }),
    field.int({
      env: 'CHORUS_CORPUS_REPLY_SNAPSHOT_SEC',
      default: 5,
      min: 1,
      max: 60,
      group,
      description: 'Seconds a local reply snapshot stays cached.',
    }),
    field.int({
      env: 'CHORUS_CORPUS_REPLY_SNAPSHOT_MAX',
      default: 20000,
      min: 1000,
      max: 100000,
      group,
      description: 'Entries of the reply snapshot cache before the least recently used are evicted.',
    }),
    field.int({
      env: 'CHORUS_CORPUS_REPLY_QUERY_TIMEOUT_SEC',
      default: 2,
      min: 1,
      max: 30,
      group,
      description: 'Seconds a reply waits for its snapshot query before giving up.',
    }),
  ],
});

export type PerformanceConfig = SectionValues<typeof performanceSection>;
