/**
 * The corpus records (docs/rules.md#store-keys). A context is the keyword string of a message;
 * its answers are the replies that followed it, each with the raw message texts seen for it.
 * Times are unix seconds.
 */
export interface Answer {
  keywords: string;
  /** Group where the answer was learned; 0 marks an anonymised community answer. */
  groupId: number;
  count: number;
  time: number;
  /** Raw reply texts (CQ-coded), oldest first. */
  messages: string[];
}

export interface Ban {
  /** The answer keywords being banned. */
  keywords: string;
  groupId: number;
  reason: string;
  time: number;
}

export interface Context {
  keywords: string;
  time: number;
  triggerCount: number;
  clearTime: number;
  answers: Answer[];
  bans: Ban[];
}

/** One learn event: `answerKeywords` followed `keywords` in `groupId`. */
export interface LearnInput {
  keywords: string;
  groupId: number;
  answerKeywords: string;
  answerTime: number;
  message: string;
  /** Append `message` to an existing answer's messages (a new answer always stores it). */
  appendOnExisting: boolean;
}

/**
 * What became of one pair of a learn batch: `created` (its context was new), `existing`, `rejected`
 * by the contamination guard (nothing written), or `failed` (not written: the batch failed and so
 * did this pair when retried alone).
 */
export type LearnOutcome = 'created' | 'existing' | 'rejected' | 'failed';

export interface LearnBatchResult {
  /** One per pair, in order. */
  outcomes: LearnOutcome[];
  /** Whether the batch's unit of work failed and its pairs were retried one by one. */
  retriedPairByPair: boolean;
  /** Why the batch's unit of work failed, when it did (for the log). */
  error?: string;
}

export interface BanReplyTarget {
  contextKeywords: string;
  answerKeywords: string;
}

/** A group chat log row (docs/rules.md#chat-log). */
export interface GroupMessage {
  groupId: number;
  userId: number;
  botId: number;
  rawMessage: string;
  isPlainText: boolean;
  plainText: string;
  keywords: string;
  time: number;
  senderName: string;
  messageId: number | null;
  replyToMessageId: number | null;
}

/** Per-group reply blacklist: `answers` are banned, `answersReserve` had a first strike. */
export interface Blacklist {
  groupId: number;
  answers: string[];
  answersReserve: string[];
}

export function newContext(keywords: string, time: number): Context {
  return { keywords, time, triggerCount: 1, clearTime: 0, answers: [], bans: [] };
}
