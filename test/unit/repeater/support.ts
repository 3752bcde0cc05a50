/**
 * Fakes and builders for the repeater tests: a recording chat platform (QQ is outside the
 * project), in-memory chat log and blacklists, a word tagger that needs no dictionary, and a
 * repeater over the corpus fakes.
 */
import { LearningQueue } from '../../../src/corpus/learning-queue.ts';
import type { GroupChatMessage } from '../../../src/domain/chat.ts';
import type { Blacklist, Context, GroupMessage } from '../../../src/domain/corpus.ts';
import type { ChatActions } from '../../../src/ports/chat.ts';
import type { BlacklistRepository, GroupMessageLog } from '../../../src/ports/group-log.ts';
import { FakeClock } from '../../../src/common/clock.ts';
import { silentLog } from '../../../src/common/log.ts';
import { KeywordExtractor, type Tagger } from '../../../src/repeater/keywords.ts';
import { seededRandom, type RandomSource } from '../../../src/repeater/random.ts';
import { Repeater, type RepeaterDecision } from '../../../src/repeater/repeater.ts';
import type { ChatControls } from '../../../src/repeater/group-controls.ts';
import type { ClaimVerdict } from '../../../src/repeater/fleet-claim.ts';
import { repeaterSettings, type RepeaterSettings } from '../../../src/repeater/settings.ts';
import { FakeLocal, FakePressure } from '../../support/corpus-fakes.ts';

export const BOT = 10_001;
export const OTHER_BOT = 10_002;
export const GROUP = 500;

/** Tags = the space-separated words of two or more characters, in order (no dictionary needed). */
export const wordTagger: Tagger = (text, topK) =>
  text
    .split(/\s+/)
    .filter((word) => [...word].length >= 2)
    .slice(0, topK);

export interface SentMessage {
  selfId: number;
  groupId: number;
  message: string;
  messageId: number;
}

export class FakeChat implements ChatActions {
  readonly sent: SentMessage[] = [];
  readonly deleted: { selfId: number; messageId: number }[] = [];
  readonly stored = new Map<number, { rawMessage: string; userId: number }>();
  failSends = false;
  #nextId = 9000;

  async sendGroupMessage(selfId: number, groupId: number, message: string): Promise<{ messageId: number }> {
    if (this.failSends) throw new Error('send failed');
    const messageId = this.#nextId++;
    this.sent.push({ selfId, groupId, message, messageId });
    this.stored.set(messageId, { rawMessage: message, userId: selfId });
    return { messageId };
  }

  async deleteMessage(selfId: number, messageId: number): Promise<void> {
    this.deleted.push({ selfId, messageId });
  }

  async getMessage(_selfId: number, messageId: number): Promise<{ rawMessage: string; userId: number } | null> {
    return this.stored.get(messageId) ?? null;
  }

  texts(): string[] {
    return this.sent.map((sent) => sent.message);
  }
}

export class MemoryChatLog implements GroupMessageLog {
  readonly rows: GroupMessage[] = [];
  failures = 0;
  appendCalls = 0;

  async append(messages: readonly GroupMessage[]): Promise<void> {
    this.appendCalls++;
    if (this.failures > 0) {
      this.failures--;
      throw new Error('database down');
    }
    this.rows.push(...messages);
  }

  async recent(groupId: number, limit: number): Promise<GroupMessage[]> {
    return this.rows.filter((row) => row.groupId === groupId).slice(-limit);
  }
}

export class MemoryBlacklists implements BlacklistRepository {
  readonly rows = new Map<number, Blacklist>();
  puts = 0;

  async get(groupId: number): Promise<Blacklist | null> {
    const found = this.rows.get(groupId);
    return found ? structuredClone(found) : null;
  }

  async put(blacklist: Blacklist): Promise<void> {
    this.puts++;
    this.rows.set(blacklist.groupId, structuredClone(blacklist));
  }

  async list(): Promise<Blacklist[]> {
    return [...this.rows.values()].map((row) => structuredClone(row));
  }
}

let nextMessageId = 1;

/** A group message from a member; `time` defaults to a fresh second each call. */
export function groupMessage(fields: Partial<GroupChatMessage> & { raw?: string; plain?: string }): GroupChatMessage {
  const raw = fields.raw ?? fields.rawMessage ?? fields.plain ?? '';
  const plain = fields.plain ?? fields.plainText ?? raw.replace(/\[CQ:[^\]]*\]/g, '').trim();
  return {
    selfId: fields.selfId ?? BOT,
    groupId: fields.groupId ?? GROUP,
    userId: fields.userId ?? 1,
    messageId: fields.messageId ?? nextMessageId++,
    time: fields.time ?? 1_700_000_000 + nextMessageId,
    rawMessage: raw,
    plainText: plain,
    senderName: fields.senderName ?? 'member',
    senderRole: fields.senderRole ?? 'member',
    replyToMessageId: fields.replyToMessageId ?? null,
    mentionsSelf: fields.mentionsSelf ?? false,
  };
}

/** Settings for tests: no delays, no cool-down, a fixed threshold of 3 unless told otherwise. */
export function testSettings(overrides: Partial<RepeaterSettings> = {}): RepeaterSettings {
  return repeaterSettings({
    answerThresholdWeights: [1],
    cooldownMs: 0,
    replyDelay: { minMs: 0, maxMs: 0 },
    splitDelay: { minMs: 0, maxMs: 0 },
    bundleCacheMs: 0,
    bundleNegativeCacheMs: 0,
    splitProbability: 0,
    ...overrides,
  });
}

export interface RepeaterHarness {
  repeater: Repeater;
  corpus: FakeLocal;
  chat: FakeChat;
  chatLog: MemoryChatLog;
  blacklists: MemoryBlacklists;
  learning: LearningQueue;
  pressure: FakePressure;
  clock: FakeClock;
  bots: Set<number>;
  decisions: RepeaterDecision[];
  sleeps: number[];
  /** Sends `fields` as a message and returns the decision. */
  say(fields: Partial<GroupChatMessage> & { raw?: string; plain?: string }): Promise<RepeaterDecision>;
}

export function repeaterHarness(
  options: {
    settings?: Partial<RepeaterSettings>;
    random?: RandomSource;
    corpus?: FakeLocal;
    controls?: ChatControls;
    claim?: (key: string, groupId: number) => Promise<ClaimVerdict>;
  } = {},
): RepeaterHarness {
  const clock = new FakeClock();
  const corpus = options.corpus ?? new FakeLocal();
  const chat = new FakeChat();
  const chatLog = new MemoryChatLog();
  const blacklists = new MemoryBlacklists();
  const pressure = new FakePressure(0);
  const learning = new LearningQueue(() => clock.monotonicMs());
  const bots = new Set([BOT, OTHER_BOT]);
  const decisions: RepeaterDecision[] = [];
  const sleeps: number[] = [];
  const repeater = new Repeater({
    settings: testSettings(options.settings),
    keywords: new KeywordExtractor({ tagger: wordTagger }),
    corpus,
    learning,
    pressure,
    chat,
    messageLog: chatLog,
    blacklists,
    botIds: () => bots,
    clock,
    random: options.random ?? seededRandom(7),
    log: silentLog,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    onDecision: (decision) => decisions.push(decision),
    ...(options.controls ? { controls: options.controls } : {}),
    ...(options.claim ? { claim: options.claim } : {}),
  });
  return {
    repeater,
    corpus,
    chat,
    chatLog,
    blacklists,
    learning,
    pressure,
    clock,
    bots,
    decisions,
    sleeps,
    say: (fields) => repeater.onGroupMessage(groupMessage(fields)),
  };
}

/** A context with answers given as [keywords, groupId, count, messages?]. */
export function contextWith(
  keywords: string,
  answers: [string, number, number, string[]?][],
  bans: Context['bans'] = [],
): Context {
  return {
    keywords,
    time: 1_700_000_000,
    triggerCount: answers.length,
    clearTime: 0,
    answers: answers.map(([answerKeywords, groupId, count, messages]) => ({
      keywords: answerKeywords,
      groupId,
      count,
      time: 1_700_000_000,
      messages: messages ?? [answerKeywords],
    })),
    bans,
  };
}
