/**
 * The corpus browser's context view as the console API sends it (routes/moderation.ts): a context
 * with its answers, each with its state in the group it was learned in, as codes the web console
 * words (web/src/locales): banned everywhere, banned here, ready to be said (its count reached the
 * group's answer threshold), or still counting (seen N of the threshold), and when the bot sent it
 * there lately.
 */
import Type from 'typebox';
import { GLOBAL_BAN_GROUP } from '../repeater/limits.ts';
import type { AnswerView, ContextView } from '../store/corpus-browse.ts';

/** "Said recently": the bot sent the answer in that group within this many seconds. */
export const SAID_RECENTLY_SEC = 3_600;

export const ANSWER_STATES = ['banned_everywhere', 'banned_here', 'ready', 'counting'] as const;
export type AnswerState = (typeof ANSWER_STATES)[number];

const AnswerStatus = Type.Object(
  {
    state: Type.Enum([...ANSWER_STATES], {
      description:
        'banned_everywhere / banned_here: a ban after this context holds in the answer group; ready: its count ' +
        'reached the answer threshold there; counting: seen `count` of `threshold` times.',
    }),
    threshold: Type.Integer({ description: "The answer group's answer threshold (its own, or the configured one)." }),
    said_recently_at: Type.Integer({
      description: `Unix seconds the bot last sent it in the answer group when within ${SAID_RECENTLY_SEC} s; 0 otherwise.`,
    }),
  },
  { description: 'The answer in the group it was learned in (group 0: in any group).' },
);

export const Answer = Type.Object({
  id: Type.Integer(),
  keywords: Type.String(),
  group_id: Type.Integer({ description: '0: a community answer.' }),
  count: Type.Integer(),
  time: Type.Integer(),
  messages: Type.Array(Type.String(), { description: 'Sample messages, newest first (raw CQ form).' }),
  message_count: Type.Integer(),
  sent: Type.Array(
    Type.Object({
      group_id: Type.Integer(),
      last_sent: Type.Integer({ description: 'Unix seconds.' }),
      count: Type.Integer(),
    }),
    { description: 'Where used: the groups where the bot sent this answer as a reply, newest first.' },
  ),
  status: AnswerStatus,
});

export const Ban = Type.Object({
  id: Type.Integer(),
  keywords: Type.String({ description: 'The banned answer keywords.' }),
  group_id: Type.Integer({ description: `${GLOBAL_BAN_GROUP}: everywhere.` }),
  reason: Type.String(),
  time: Type.Integer(),
});

export const Context = Type.Object({
  id: Type.Integer(),
  keywords: Type.String(),
  time: Type.Integer(),
  trigger_count: Type.Integer(),
  clear_time: Type.Integer(),
  answer_count_sum: Type.Integer(),
  answers: Type.Array(Answer),
  bans: Type.Array(Ban),
});

/** What judging an answer's state needs besides the view. */
export interface StatusInput {
  /** The answer threshold in a group (its own setting, or the configured one). */
  thresholdIn: (groupId: number) => number;
  nowSec: number;
}

export function answerStatus(view: ContextView, answer: AnswerView, input: StatusInput) {
  const bans = view.bans.filter((ban) => ban.keywords === answer.keywords);
  const threshold = input.thresholdIn(answer.groupId);
  let state: AnswerState;
  if (bans.some((ban) => ban.groupId === GLOBAL_BAN_GROUP)) state = 'banned_everywhere';
  else if (answer.groupId !== 0 && bans.some((ban) => ban.groupId === answer.groupId)) state = 'banned_here';
  else state = answer.count >= threshold ? 'ready' : 'counting';
  const sent = answer.usage.find((usage) => usage.groupId === answer.groupId);
  const recently = sent !== undefined && sent.lastSent >= input.nowSec - SAID_RECENTLY_SEC;
  return { state, threshold, said_recently_at: recently ? sent.lastSent : 0 };
}

/** The groups whose thresholds judging these views needs (community answers: the configured one). */
export function answerGroups(views: readonly ContextView[]): number[] {
  const groups = new Set<number>();
  for (const view of views) for (const answer of view.answers) if (answer.groupId !== 0) groups.add(answer.groupId);
  return [...groups];
}

export function toContext(view: ContextView, input: StatusInput) {
  return {
    id: view.id,
    keywords: view.keywords,
    time: view.time,
    trigger_count: view.triggerCount,
    clear_time: view.clearTime,
    answer_count_sum: view.answerCountSum,
    answers: view.answers.map((a) => ({
      id: a.id,
      keywords: a.keywords,
      group_id: a.groupId,
      count: a.count,
      time: a.time,
      messages: a.messages,
      message_count: a.messageCount,
      sent: a.usage.map((u) => ({ group_id: u.groupId, last_sent: u.lastSent, count: u.count })),
      status: answerStatus(view, a, input),
    })),
    bans: view.bans.map((b) => ({
      id: b.id,
      keywords: b.keywords,
      group_id: b.groupId,
      reason: b.reason,
      time: b.time,
    })),
  };
}
