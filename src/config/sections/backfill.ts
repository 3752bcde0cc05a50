/**
 * Gradual upload of local history to the community (docs/rules.md#backfill,
 * which fixes the rate default at 40 per minute).
 */
import { field } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

const group = 'History backfill';

export const backfillSection = defineSection({
  id: 'backfill',
  title: 'History backfill',
  prefix: 'CHORUS_CORPUS_BACKFILL_',
  fields: [
    field.bool({
      env: 'CHORUS_CORPUS_BACKFILL_ENABLED',
      default: false,
      group,
      description: 'Upload local history to the community library in the background.',
    }),
    field.int({
      env: 'CHORUS_CORPUS_BACKFILL_MAX_PER_MINUTE',
      default: 40,
      min: 1,
      max: 500,
      group,
      description: 'Items uploaded per minute at most.',
    }),
    field.int({
      env: 'CHORUS_CORPUS_BACKFILL_BATCH_SIZE',
      default: 30,
      min: 1,
      max: 200,
      group,
      description: 'Contexts read per backfill run.',
    }),
    field.int({
      env: 'CHORUS_CORPUS_BACKFILL_INTERVAL_SEC',
      default: 1800,
      min: 300,
      max: 86400,
      group,
      description: 'Seconds between backfill runs.',
    }),
  ],
});

export type BackfillConfig = SectionValues<typeof backfillSection>;
