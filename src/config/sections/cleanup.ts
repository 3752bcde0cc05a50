/**
 * The daily contamination cleanup (docs/rules.md#cleanup): removes polluting phrases that reached the
 * corpus before the guard knew them. Runs on the primary process only.
 */
import { field } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

const group = 'Contamination cleanup';

export const cleanupSection = defineSection({
  id: 'cleanup',
  title: 'Contamination cleanup',
  prefix: 'LLM_CORPUS_CLEANUP_',
  fields: [
    field.bool({
      env: 'LLM_CORPUS_CLEANUP_SCHEDULED',
      default: true,
      group,
      description: 'Run the contamination cleanup periodically.',
    }),
    field.int({
      env: 'LLM_CORPUS_CLEANUP_INTERVAL_SEC',
      default: 86400,
      min: 3600,
      max: 604800,
      group,
      description: 'Seconds between two cleanup rounds (the first runs 300 s after start).',
    }),
    field.int({
      env: 'LLM_CORPUS_CLEANUP_MAX_DELETE_PER_ROUND',
      default: 20000,
      min: 100,
      max: 1000000,
      group,
      description: 'Most polluted messages (and, separately, chat-log rows) deleted per round.',
    }),
  ],
});

export type CleanupConfig = SectionValues<typeof cleanupSection>;
