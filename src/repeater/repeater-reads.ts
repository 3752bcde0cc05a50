/**
 * What the repeater's state answers without changing it: "try a sentence" (try-sentence.ts), the
 * input the reply filter weighs a context against (also on the message path), and what learning
 * from history reads (history-learn.ts). Out of repeater.ts so that the service keeps to the
 * message path; the state is one object the repeater builds once.
 */
import type { Context } from '../domain/corpus.ts';
import type { GroupChatMessage } from '../domain/chat.ts';
import type { BanManager } from './bans.ts';
import type { ChatControls } from './group-controls.ts';
import type { HistoryLearnDeps } from './history-learn.ts';
import type { MessageText } from './keywords.ts';
import { GLOBAL_BAN_GROUP, REPLIES, WINDOW } from './limits.ts';
import type { MessageWindow } from './message-window.ts';
import type { AccountSettings, RepeaterOptions } from './repeater-options.ts';
import type { ReplyRecords } from './reply-records.ts';
import type { CandidateInput } from './responder.ts';
import type { RepeaterSettings } from './settings.ts';
import { trySentence } from './try-sentence.ts';

export interface RepeaterState {
  /** The settings now (they change when the configuration does). */
  settings(): RepeaterSettings;
  readonly controls: ChatControls;
  readonly options: RepeaterOptions;
  readonly window: MessageWindow;
  readonly records: ReplyRecords;
  readonly bans: BanManager;
  account(selfId: number): AccountSettings;
  nicknames(selfId: number): readonly string[];
}

export interface SeenLately {
  recentReplyKeywords: ReadonlySet<string>;
  recentRaws: ReadonlySet<string>;
}

export function candidateInputOf(
  state: RepeaterState,
  message: Pick<GroupChatMessage, 'groupId' | 'selfId'>,
  text: MessageText,
  context: Context,
  threshold: number,
  seen: SeenLately,
): CandidateInput {
  const { groupId, selfId } = message;
  return {
    groupId,
    keywords: text.keywords,
    isImage: text.isImage,
    toMe: false,
    nicknames: state.nicknames(selfId),
    threshold,
    crossGroupThreshold: state.settings().crossGroupThreshold,
    shared: (id: number) => state.controls.group(id).share,
    banned: state.bans.bannedFor(context, groupId),
    recentReplyKeywords: seen.recentReplyKeywords,
    recentRaws: seen.recentRaws,
    topicCount: (token: string) => state.window.topicCount(groupId, token),
  };
}

/** What the bot would do with `message` in the group as account `selfId`, changing nothing. */
export function trySentenceIn(
  state: RepeaterState,
  groupId: number,
  selfId: number,
  message: { rawMessage: string; plainText: string },
) {
  const { records, window, bans, options } = state;
  const recent = records.recent(groupId, selfId, REPLIES.recentReplyKeywords);
  const recentReplyKeywords = new Set(recent.map((r) => r.replyKeywords));
  const recentRaws = new Set(window.recent(groupId, WINDOW.recentMessages).map((m) => m.rawMessage));
  const global = new Set(bans.lists(GLOBAL_BAN_GROUP).active);
  return trySentence(
    {
      settings: state.settings(),
      group: state.controls.group(groupId),
      selfId,
      enabled: state.account(selfId).enabled,
      nicknames: state.nicknames(selfId),
      keywords: options.keywords,
      nowMs: options.clock.nowMs(),
      quietMs: records.quietLeftMs(groupId, selfId),
      recent,
      recentRaws,
      lookup: async (keywords) => (await options.corpus.lookupForReply(keywords)).context,
      candidateInput: (text, context, threshold) =>
        candidateInputOf(state, { groupId, selfId }, text, context, threshold, { recentReplyKeywords, recentRaws }),
      bannedEverywhere: (keywords) => global.has(keywords),
    },
    message,
  );
}

/** What learning from history reads: the same state the live path uses. */
export function historyDepsOf(state: RepeaterState): HistoryLearnDeps {
  const { options, controls } = state;
  return {
    botIds: options.botIds,
    group: (id) => controls.group(id),
    user: (id) => controls.user(id),
    accountEnabled: (selfId) => state.account(selfId).enabled,
    ignored: (userId) => state.settings().ignoreUserIds.has(userId),
    nicknames: (selfId) => state.nicknames(selfId),
    keywords: options.keywords,
    learning: options.learning,
    window: state.window,
    ...(options.claim ? { claim: options.claim } : {}),
  };
}
