/**
 * The tools the model may call (docs/agent-tasks.md#tools): each with the JSON Schema of its
 * arguments, the description the model reads (English, which every provider's models follow
 * best; the model answers members in Chinese), and a code the console words in zh/en
 * (`agent.tasks.tool_<name>`). The schemas are TypeBox, so the same object is sent to the model
 * and checks the arguments it wrote.
 */
import Type, { type TSchema } from 'typebox';
import { TASKS } from '../tasks/limits.ts';

export const TOOL_NAMES = ['current_time', 'search_group_corpus', 'recent_topics', 'create_reminder'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export interface ToolDefinition {
  readonly name: ToolName;
  /** What the model reads. */
  readonly description: string;
  /** The console's words for it: `agent.tasks.tool_<name>`. */
  readonly descriptionCode: string;
  readonly parameters: TSchema;
}

/** Longest phrase looked up in the corpus, in characters. */
export const PHRASE_MAX = 100;
/** Most answers or topics returned to the model at once. */
export const RESULTS_MAX = 10;

const noArguments = Type.Object({}, { additionalProperties: false });

const searchArguments = Type.Object(
  {
    phrase: Type.String({
      minLength: 1,
      maxLength: PHRASE_MAX,
      description: 'What someone says in the group; the tool answers how the group usually replies to it.',
    }),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: RESULTS_MAX, description: 'How many replies (default 5).' }),
    ),
  },
  { additionalProperties: false },
);

const topicArguments = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: RESULTS_MAX, description: 'How many topics (default 8).' }),
    ),
  },
  { additionalProperties: false },
);

const maxMinutes = TASKS.maxAheadMs / 60_000;
const reminderArguments = Type.Object(
  {
    when: Type.Union(
      [
        Type.String({ minLength: 1, maxLength: 40 }),
        Type.Integer({ minimum: TASKS.minAheadMs / 60_000, maximum: maxMinutes }),
      ],
      {
        description:
          'When to remind: an ISO 8601 local time such as "2026-05-01T09:30" (an offset like +08:00 may follow), ' +
          `or a number of minutes from now (1 to ${maxMinutes}).`,
      },
    ),
    text: Type.String({
      minLength: 1,
      maxLength: TASKS.textMax,
      description: 'What to say to the member at that time, in Chinese, without the member’s QQ number.',
    }),
  },
  { additionalProperties: false },
);

export const TOOL_CATALOGUE: readonly ToolDefinition[] = [
  {
    name: 'current_time',
    description: "The current date, time and weekday in the bot's time zone.",
    descriptionCode: 'tool_current_time',
    parameters: noArguments,
  },
  {
    name: 'search_group_corpus',
    description:
      "Look up this group's corpus: the replies this group's members have used after a phrase, most used first. " +
      'Use it to answer in the group’s own words.',
    descriptionCode: 'tool_search_group_corpus',
    parameters: searchArguments,
  },
  {
    name: 'recent_topics',
    description: 'The words this group has talked about most in its recent messages.',
    descriptionCode: 'tool_recent_topics',
    parameters: topicArguments,
  },
  {
    name: 'create_reminder',
    description:
      'Create a reminder for the member who is talking to you: the bot will say the text in this group at that ' +
      `time, mentioning them. At most ${TASKS.perMember} open reminders per member, up to 30 days ahead. ` +
      'The member can list them with 「我的提醒」 and cancel one with 「取消提醒 编号」.',
    descriptionCode: 'tool_create_reminder',
    parameters: reminderArguments,
  },
];
