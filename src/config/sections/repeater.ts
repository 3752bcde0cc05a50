/**
 * The repeater (docs/rules.md#rep-reply): how sure the corpus must be before the bot answers, who
 * the bot is, and how fast it speaks. Values are read by the repeater's constructor as plain
 * numbers and lists (src/repeater/settings.ts).
 */
import { field, parsedBad, parsedOk, type Parsed } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

/** `min-max` seconds (or one number for both), e.g. `2-5`; canonical text `min-max`. */
export function parseSecondsRange(text: string): Parsed<string> {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:-\s*(\d+(?:\.\d+)?)\s*)?$/.exec(text);
  if (!match) return parsedBad('expected seconds as min-max, e.g. 2-5 (or one number)');
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : Number(match[2]);
  if (max < min || max > 3600) return parsedBad('expected min <= max <= 3600 seconds');
  return parsedOk(`${min}-${max}`);
}

/** Comma-separated non-negative weights with a positive sum, e.g. `7,23,70`. */
export function parseThresholdWeights(text: string): Parsed<string> {
  const items = text.split(/[,\s]+/).filter((item) => item !== '');
  const weights = items.map(Number);
  if (items.length === 0 || items.length > 100 || weights.some((w) => !Number.isFinite(w) || w < 0)) {
    return parsedBad('expected comma-separated non-negative numbers, e.g. 7,23,70');
  }
  if (weights.reduce((sum, w) => sum + w, 0) <= 0) return parsedBad('expected at least one positive weight');
  return parsedOk(weights.join(','));
}

const ID_TEXT = /^\d{1,15}$/;

export const repeaterSection = defineSection({
  id: 'repeater',
  title: 'Repeater',
  prefix: 'CHORUS_REPEATER_',
  fields: [
    field.list({
      env: 'CHORUS_REPEATER_NICKNAMES',
      default: ['chorus'],
      group: 'Persona',
      description: 'Names that address the bot at the start of a message (matched ignoring case).',
    }),
    field.list({
      env: 'CHORUS_REPEATER_IGNORE_USER_IDS',
      default: [],
      separator: /[|\n,\s]+/,
      normalise: (items) => items.filter((item) => ID_TEXT.test(item)),
      group: 'Persona',
      description: 'QQ numbers (e.g. other bots) never learned from and never counted as human repeats.',
    }),
    field.int({
      env: 'CHORUS_REPEATER_ANSWER_THRESHOLD',
      default: 3,
      min: 1,
      max: 100,
      group: 'Reply',
      description: 'Highest count an answer needs before the bot uses it (the weights pick lower ones).',
    }),
    field.string({
      env: 'CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS',
      default: '7,23,70',
      check: parseThresholdWeights,
      group: 'Reply',
      description: 'Weights of the thresholds ending at the answer threshold, lowest first (7,23,70 picks 1, 2 or 3).',
    }),
    field.int({
      env: 'CHORUS_REPEATER_CROSS_GROUP_THRESHOLD',
      default: 2,
      min: 1,
      max: 100,
      group: 'Reply',
      description: 'Number of other groups that must share an answer before it is used here.',
    }),
    field.int({
      env: 'CHORUS_REPEATER_REPEAT_THRESHOLD',
      default: 3,
      min: 0,
      max: 100,
      group: 'Reply',
      description: 'Identical human messages in a row that the bot joins once (below 2 turns repeating off).',
    }),
    field.float({
      env: 'CHORUS_REPEATER_SPLIT_PROBABILITY',
      default: 0.5,
      min: 0,
      max: 1,
      group: 'Reply',
      description: 'Chance that a reply with one to three full-width commas is sent as separate messages.',
    }),
    field.float({
      env: 'CHORUS_REPEATER_COOLDOWN_SEC',
      default: 5,
      min: 0,
      max: 3600,
      group: 'Pacing',
      description: 'Seconds a bot stays quiet in a group after it replied there.',
    }),
    field.string({
      env: 'CHORUS_REPEATER_REPLY_DELAY_SEC',
      default: '2-5',
      check: parseSecondsRange,
      group: 'Pacing',
      description: 'Random delay in seconds before the first message of a reply, as min-max.',
    }),
    field.string({
      env: 'CHORUS_REPEATER_SPLIT_DELAY_SEC',
      default: '1-3',
      check: parseSecondsRange,
      group: 'Pacing',
      description: 'Random delay in seconds between the parts of a split reply, as min-max.',
    }),
    field.float({
      env: 'CHORUS_REPEATER_BUNDLE_TIMEOUT_SEC',
      default: 0.8,
      min: 0,
      max: 30,
      group: 'Performance',
      description: 'Longest wait for a reply lookup before the message goes unanswered (0 waits without bound).',
    }),
    field.int({
      env: 'CHORUS_REPEATER_BUNDLE_CACHE_SEC',
      default: 8,
      min: 0,
      max: 600,
      group: 'Performance',
      description: 'Seconds a found reply bundle is reused for the same message in a group (0 disables).',
    }),
    field.int({
      env: 'CHORUS_REPEATER_BUNDLE_NEGATIVE_CACHE_SEC',
      default: 20,
      min: 0,
      max: 600,
      group: 'Performance',
      description: 'Seconds a message without reply is not looked up again in its group (0 disables).',
    }),
    field.int({
      env: 'CHORUS_REPEATER_MAINTENANCE_HOUR',
      default: 4,
      min: 0,
      max: 23,
      group: 'Maintenance',
      description: 'Local hour of the daily corpus cleanup and blacklist save (primary process only).',
    }),
    field.int({
      env: 'CHORUS_REPEATER_DECISION_LOG_DAYS',
      default: 7,
      min: 1,
      max: 90,
      group: 'Maintenance',
      description: "Days the repeater's decisions are kept for the console's Why page (trimmed every 5 minutes).",
    }),
    field.int({
      env: 'CHORUS_REPEATER_DECISION_LOG_MAX_ROWS',
      default: 200_000,
      min: 1000,
      max: 10_000_000,
      group: 'Maintenance',
      description: "At most this many of the repeater's newest decisions are kept for the Why page.",
    }),
    field.bool({
      env: 'CHORUS_REPEATER_PROACTIVE_ENABLED',
      default: false,
      group: 'Proactive speech',
      description:
        'Talk first when a group goes quiet, in every group without its own switch (docs/repeater.md#proactive-speech).',
    }),
    field.float({
      env: 'CHORUS_REPEATER_PROACTIVE_FACTOR',
      default: 5,
      min: 0,
      max: 1000,
      group: 'Proactive speech',
      description: 'A group is quiet after its average message interval times this, plus the floor.',
    }),
    field.float({
      env: 'CHORUS_REPEATER_PROACTIVE_FLOOR_SEC',
      default: 600,
      min: 0,
      max: 86_400,
      group: 'Proactive speech',
      description: 'Seconds added to the scaled average interval before a group counts as quiet.',
    }),
    field.int({
      env: 'CHORUS_REPEATER_PROACTIVE_CHECK_SEC',
      default: 60,
      min: 1,
      max: 3600,
      group: 'Proactive speech',
      description: 'How often the quiet groups are looked for, in seconds.',
    }),
    field.float({
      env: 'CHORUS_REPEATER_PROACTIVE_POKE_PROBABILITY',
      default: 0,
      min: 0,
      max: 1,
      group: 'Proactive speech',
      description: 'Chance that a proactive line is followed by a poke of a member who spoke recently (0: never).',
    }),
    field.string({
      env: 'CHORUS_REPEATER_BAN_ACK',
      default: '好的，以后不说这句了。',
      group: 'Persona',
      description: 'What the bot says after a ban of one of its replies (empty says nothing).',
    }),
  ],
});

export type RepeaterConfig = SectionValues<typeof repeaterSection>;
