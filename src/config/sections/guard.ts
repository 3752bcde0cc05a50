/**
 * The contamination guard keeps the bot's own language-model phrases out of the corpus. The
 * phrase lists are configuration, not code (docs/rules.md#guard): the origin's list
 * was persona-specific. Keys keep their un-prefixed names (docs/rules.md#names).
 */
import { field } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

const group = 'Learning guard';

export const guardSection = defineSection({
  id: 'guard',
  title: 'Learning guard',
  prefix: 'LLM_CORPUS_LEARN_GUARD_',
  fields: [
    field.bool({
      env: 'LLM_CORPUS_LEARN_GUARD_ENABLED',
      default: true,
      group,
      description: 'Refuse to learn messages that contain a polluting phrase.',
    }),
    field.list({
      env: 'LLM_CORPUS_LEARN_GUARD_PHRASES',
      default: [],
      group,
      description: 'Polluting phrases; a message containing one is not learned.',
    }),
    field.list({
      env: 'LLM_CORPUS_LEARN_GUARD_EXEMPT',
      default: [],
      group,
      description: 'Phrases that make a message learnable even if it contains a polluting phrase.',
    }),
  ],
});

export type GuardConfig = SectionValues<typeof guardSection>;
