import { errorMessage } from '../common/errors.ts';
import { NO_ACTIVITY } from '../domain/activity.ts';
import type { GroupChatMessage, GroupRecall } from '../domain/chat.ts';
import type { Context } from '../domain/corpus.ts';
import { RateLimitedLog } from '../common/log.ts';
import { TaskSet } from '../common/task-set.ts';
import { carriedCommands, commandRecorder, obeyCommands, type CommandDeps } from './commands.ts';
import { claimKey, type ClaimVerdict } from './fleet-claim.ts';
import { controlGate, NO_CONTROLS, type ChatControls } from './group-controls.ts';
import { BanFlow, type BanOutcome } from './ban-flow.ts';
import { BanManager } from './bans.ts';
import { BundleCache, type BundleSource } from './bundle-cache.ts';
import { missFor, skipped, type DecisionCause, type RepeaterDecision, type Verdict } from './decision.ts';
import { lookupMissCause, MissCauses } from './decision-causes.ts';
import { lookupGate, speakerGate } from './reply-gates.ts';
import { sendReplies, type ReplySendDeps } from './reply-sends.ts';
import { candidateInputOf, historyDepsOf, trySentenceIn, type RepeaterState } from './repeater-reads.ts';
import type { HistoryLearnDeps } from './history-learn.ts';
import { lookupBundle, type LookupOutcome } from './reply-lookup.ts';
import { topicTokens } from './cq-text.ts';
import { describeText, type MessageText } from './keywords.ts';
import { GLOBAL_BAN_GROUP, REPLIES, WINDOW } from './limits.ts';
import { logRow, MessageLogBuffer, offerLearning } from './message-log-buffer.ts';
import { MessageWindow, type WindowMessage } from './message-window.ts';
import { sleepBetween, systemRandom, type RandomSource } from './random.ts';
import { ReplyRecords } from './reply-records.ts';
import { QuietGroups } from './quiet-groups.ts';
import { chooseReply, pickThreshold, repeatVerdict, type CandidateInput, type ReplyBundle } from './responder.ts';
import { EVERY_ACCOUNT, withAccountNicknames, type AccountSettings, type RepeaterOptions } from './repeater-options.ts';
import type { DelayRange, RepeaterSettings } from './settings.ts';

/** A line the bot says of its own accord: its text and its keywords. */
type Line = Pick<WindowMessage, 'rawMessage' | 'keywords'>;

export type { DecisionOutcome, DecisionReason, RepeaterDecision } from './decision.ts';
export type { AccountSettings, AnswerSent, LearningSink, RepeaterOptions, ReplyCorpus } from './repeater-options.ts';

/**
 * The repeater (docs/rules.md#rep-reply): takes every group message, learns from it through the
 * learning queue, decides whether to answer from the corpus, and sends through the chat port
 * after a human-like delay. Bans arrive as commands or recalls. `start` loads blacklists and
 * starts the chat-log writer and the idle pruner; `stop` drains and saves.
 */
export class Repeater {
  readonly window: MessageWindow;
  readonly records: ReplyRecords;
  readonly bans: BanManager;
  readonly bundles: BundleCache<ReplyBundle>;
  readonly messageLog: MessageLogBuffer;
  readonly decisions = new Map<string, number>();
  /** What proactive speech reads (proactive.ts); kept per message in O(1). */
  readonly quiet = new QuietGroups();
  readonly #options: RepeaterOptions;
  readonly #random: RandomSource;
  readonly #tasks: TaskSet;
  readonly #banFlow: BanFlow;
  readonly #warn: RateLimitedLog;
  readonly #controls: ChatControls;
  readonly #missCauses = new MissCauses();
  /** The state the readers in repeater-reads.ts see; one object for the service's life. */
  readonly #state: RepeaterState;
  #settings: RepeaterSettings;
  #pruneTimer: NodeJS.Timeout | undefined;
  #stopping = false;

  constructor(options: RepeaterOptions) {
    this.#options = options;
    this.#settings = options.settings;
    this.#random = options.random ?? systemRandom;
    this.#controls = options.controls ?? NO_CONTROLS;
    const now = () => options.clock.monotonicMs();
    this.#warn = new RateLimitedLog(options.log, now);
    this.#tasks = new TaskSet((label, error) =>
      this.#warn.warn(label, { error: errorMessage(error) }, 'repeater task failed'),
    );
    this.window = new MessageWindow(now);
    this.records = new ReplyRecords(now);
    this.bundles = new BundleCache<ReplyBundle>(now);
    this.messageLog = new MessageLogBuffer({ log: options.messageLog, logger: options.log, now });
    this.bans = new BanManager({
      corpus: options.corpus,
      records: this.records,
      repository: options.blacklists,
      crossGroupThreshold: () => this.#settings.crossGroupThreshold,
      clock: options.clock,
      log: options.log,
      ...(options.onBanned ? { onBanned: options.onBanned } : {}),
    });
    this.#state = {
      settings: () => this.#settings,
      controls: this.#controls,
      options,
      window: this.window,
      records: this.records,
      bans: this.bans,
      account: (selfId) => this.#account(selfId),
      nicknames: (selfId) => this.#nicknames(selfId),
    };
    this.#banFlow = new BanFlow({
      bans: this.bans,
      records: this.records,
      chat: options.chat,
      botIds: options.botIds,
      nicknames: (selfId) => this.#nicknames(selfId),
      ack: () => this.#settings.banAck,
      tasks: this.#tasks,
      log: options.log,
      nowSec: () => Math.floor(options.clock.nowMs() / 1000),
      activity: options.activity ?? NO_ACTIVITY,
    });
  }

  get settings(): RepeaterSettings {
    return this.#settings;
  }

  /** New settings from a configuration change; cached bundles made under the old ones are dropped. */
  applySettings(settings: RepeaterSettings): void {
    this.#settings = settings;
    this.bundles.clear();
  }

  async start(): Promise<void> {
    this.#stopping = false;
    await this.bans.load();
    this.messageLog.start();
    this.#pruneTimer ??= setInterval(() => this.prune(), WINDOW.pruneEveryMs);
    this.#pruneTimer.unref();
  }

  /** Stops timers, lets pending sends finish (until the deadline), writes the log and blacklists. */
  async stop(deadlineMs = 5000): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#pruneTimer);
    this.#pruneTimer = undefined;
    await this.#tasks.drain(deadlineMs);
    await this.messageLog.stop();
    await this.bans.save();
  }

  /** Resolves when the sends and acknowledgements under way are done (tests, demo). */
  async idle(deadlineMs = 10_000): Promise<void> {
    await this.#tasks.drain(deadlineMs);
  }

  /** Drops groups idle for hours (runs every 10 minutes once started). */
  prune(): void {
    this.window.prune(WINDOW.idleMs);
    this.records.prune(WINDOW.idleMs);
    this.quiet.prune(WINDOW.idleMs, this.#options.clock.monotonicMs());
  }

  async onGroupRecall(recall: GroupRecall): Promise<BanOutcome> {
    return this.#banFlow.recall(recall);
  }

  async onGroupMessage(message: GroupChatMessage): Promise<RepeaterDecision> {
    const started = this.#options.clock.monotonicMs();
    const bots = this.#options.botIds();
    const own = message.userId === message.selfId || bots.has(message.userId);
    // The fleet claim's round trip overlaps the keyword extraction (docs/rules.md#fleet-claims).
    const claim = own ? undefined : this.#options.claim?.(claimKey(message), message.groupId);
    const text = describeText(message.rawMessage, message.plainText, this.#options.keywords);
    const verdict = await this.#handle(message, text, bots, claim);
    const decision: RepeaterDecision = {
      groupId: message.groupId,
      selfId: message.selfId,
      userId: message.userId,
      messageId: message.messageId,
      texts: [],
      answerKeywords: null,
      keywords: text.keywords,
      learn: 'not-offered',
      cache: null,
      threshold: null,
      ...verdict,
      latencyMs: this.#options.clock.monotonicMs() - started,
      rawMessage: message.rawMessage,
      senderName: message.senderName,
    };
    this.quiet.observe(decision, this.#options.clock.monotonicMs());
    this.record(decision);
    return decision;
  }

  /** Counts a decision (console counters) and tells it on (Why page, metrics). */
  record(decision: RepeaterDecision): void {
    this.decisions.set(decision.reason, (this.decisions.get(decision.reason) ?? 0) + 1);
    this.#options.onDecision?.(decision);
  }

  async #handle(
    message: GroupChatMessage,
    text: MessageText,
    bots: ReadonlySet<number>,
    claim: Promise<ClaimVerdict> | undefined,
  ): Promise<Verdict> {
    const { groupId, selfId, userId } = message;
    if (userId === selfId || bots.has(userId)) return skipped('self');
    const group = this.#controls.group(groupId);
    if (group.banned) return skipped('group-banned');
    const duplicate = this.window.checkSeen(groupId, message.messageId, `${userId}|${message.time}|${text.rawMessage}`);
    if (duplicate) return skipped(duplicate);
    // Its place in the group's arrival order, taken before the first await (docs/rules.md#learn-predecessor).
    const sequence = this.window.arrive(groupId);
    // Another process logs, learns and answers what it claimed; commands still count (docs/rules.md#fleet-claims).
    const elsewhere = claim !== undefined && (await claim) === 'lost';
    if (!elsewhere) this.messageLog.push(logRow(message, text));
    const gate = this.#account(selfId).enabled ? controlGate(group, this.#controls.user(userId)) : 'disabled';
    if (gate) return skipped(elsewhere ? 'claimed-elsewhere' : gate);

    const settings = this.#settings;
    const carried = carriedCommands(message, text, this.#nicknames(selfId));
    const commanded = carried && (await obeyCommands(message, carried, this.#commandDeps(message)));
    if (commanded) return commanded;
    // The window is every process's memory of the group: what another process took joins it too.
    if (elsewhere) {
      this.window.remember(message, sequence, text, this.#settings.nicknames);
      return skipped('claimed-elsewhere');
    }

    // What the reply rules need from the window is taken before this message joins it (docs/rules.md#rep-reply).
    const isHuman = (m: { userId: number }) => !bots.has(m.userId) && !settings.ignoreUserIds.has(m.userId);
    const repeatNeed = Math.max(0, settings.repeatThreshold - 1);
    const humanTail = this.window.recent(groupId, repeatNeed, isHuman).map((m) => m.rawMessage);
    const recentRaws = new Set(this.window.recent(groupId, WINDOW.recentMessages).map((m) => m.rawMessage));
    const predecessor = this.window.predecessor(groupId, sequence);
    const learnable = group.learn && !this.#settings.ignoreUserIds.has(userId);
    const learn = learnable ? offerLearning(this.#options.learning, message, text, predecessor) : 'not-offered';
    this.window.remember(message, sequence, text, this.#settings.nicknames);

    const decided = await this.#decide(message, text, { humanTail, recentRaws });
    return { ...decided, learn };
  }

  async #decide(
    message: GroupChatMessage,
    text: MessageText,
    seen: { humanTail: string[]; recentRaws: Set<string> },
  ): Promise<Verdict> {
    const settings = this.#settings;
    const { groupId, selfId } = message;
    if (settings.ignoreUserIds.has(message.userId)) return skipped('ignored-user');
    const group = this.#controls.group(groupId);
    const speaker = speakerGate(text, {
      ...message,
      nicknames: this.#nicknames(selfId),
      group,
      nowSec: Math.floor(this.#options.clock.nowMs() / 1000),
      quietMs: this.records.quietLeftMs(groupId, selfId),
    });
    if (speaker) return speaker;

    const latest = this.records.latest(groupId, selfId)?.reply;
    const repeat = repeatVerdict(text.rawMessage, seen.humanTail, settings.repeatThreshold, latest);
    if (repeat === 'echo') return this.#reply(message, text, text.keywords, [text.rawMessage], 'repeat', null);
    if (repeat === 'already') return skipped('repeat-done');

    const unfit = lookupGate(text);
    if (unfit) return unfit;

    const recent = this.records.recent(
      groupId,
      selfId,
      Math.max(REPLIES.recentReplyKeywords, REPLIES.recentReplyTexts),
    );
    const recentReplyKeywords = new Set(recent.slice(0, REPLIES.recentReplyKeywords).map((r) => r.replyKeywords));
    const outcome: LookupOutcome = { missReason: 'no-candidate', drawn: null };
    const remember = (cause: DecisionCause) => this.#missCauses.remember(groupId, text.rawMessage, cause);
    const found = await this.bundles.get(
      { groupId, botId: selfId, rawMessage: text.rawMessage, keywords: text.keywords, salt: this.bans.version },
      {
        positiveMs: settings.bundleCacheMs,
        negativeMs: settings.bundleNegativeCacheMs,
        timeoutMs: settings.bundleTimeoutMs,
      },
      () =>
        lookupBundle(
          text,
          {
            pressure: () => this.#options.pressure.pressure(),
            corpus: this.#options.corpus,
            drawThreshold: () =>
              pickThreshold(
                group.answerThreshold ?? settings.answerThreshold,
                settings.answerThresholdWeights,
                text.tags.length,
                this.#random,
              ),
            input: (context, drawn) =>
              this.candidateInput(message, text, context, drawn, { recentReplyKeywords, ...seen }),
            missCause: (context, input) => {
              const nowSec = Math.floor(this.#options.clock.nowMs() / 1000);
              const global = new Set(this.bans.lists(GLOBAL_BAN_GROUP).active);
              return lookupMissCause(context, input, recent, nowSec, (k) => global.has(k));
            },
            remember,
          },
          outcome,
        ),
    );
    const cache = found.source;
    const threshold = found.value?.threshold ?? outcome.drawn;
    if (found.source === 'error') {
      this.#warn.warn('reply-lookup', { error: String(found.error) }, 'reply lookup failed');
    }
    if (!found.value) {
      const reason = missFor(found.source, outcome.missReason);
      // A cached miss says what held the message back when it was looked up.
      const cause = reason === 'cached-miss' ? this.#missCauses.recall(groupId, text.rawMessage) : outcome.missCause;
      return { ...skipped(reason, cause), cache, threshold };
    }

    const choice = chooseReply(found.value.candidates, {
      random: this.#random,
      nicknames: this.#nicknames(selfId),
      splitProbability: settings.splitProbability,
      recentReplyKeywords,
      recentTexts: new Set(recent.slice(0, REPLIES.recentReplyTexts).map((r) => r.reply)),
    });
    if (!choice) return { ...skipped('nothing-new'), cache, threshold };
    const reason = choice.origin === 'group' ? 'threshold' : choice.origin;
    const learnedFor = found.value.contextKeywords;
    const count = found.value.candidates.find((c) => c.keywords === choice.answerKeywords)?.count ?? 0;
    const cause = { code: reason, params: { count, threshold: threshold ?? 0 } };
    const sent = this.#reply(message, text, choice.answerKeywords, choice.texts, reason, cache, learnedFor);
    return { ...sent, threshold, cause };
  }

  /** Records the reply, starts the cool-down and schedules the sends with their delays. */
  #reply(
    message: GroupChatMessage,
    text: MessageText,
    answerKeywords: string,
    texts: readonly string[],
    reason: RepeaterDecision['reason'],
    cache: BundleSource | null,
    contextKeywords: string = text.keywords,
  ): Verdict {
    const settings = this.#settings;
    const { groupId, selfId } = message;
    const cooldownSec = this.#controls.group(groupId).replyCooldownSec;
    this.records.quiet(groupId, selfId, cooldownSec === null ? settings.cooldownMs : cooldownSec * 1000);
    const time = Math.floor(this.#options.clock.nowMs() / 1000);
    const records = texts.map((reply) =>
      this.records.add(groupId, {
        botId: selfId,
        time,
        preRawMessage: text.rawMessage,
        preKeywords: contextKeywords,
        reply,
        replyKeywords: answerKeywords,
        messageId: null,
      }),
    );
    if (!texts.some((item) => item.includes('[CQ:')) && !answerKeywords.includes('[CQ:')) {
      this.window.addTopics(groupId, topicTokens(this.#settings.nicknames, answerKeywords.split(' ')));
    }
    const nowSec = () => Math.floor(this.#options.clock.nowMs() / 1000);
    const sends = this.#sendDeps(groupId, selfId, () => {
      if (reason !== 'repeat')
        this.#options.onAnswerSent?.({ groupId, contextKeywords, answerKeywords, time: nowSec() });
    });
    this.#tasks.run('repeater-send', () => sendReplies(records, sends));
    return { outcome: 'replied', reason, texts, answerKeywords, cache };
  }

  /**
   * A proactive line (proactive.ts): recorded like a reply (so 「不可以」 bans it, and it is not said
   * again soon) and sent with the same delays; then, when asked, a poke of `pokeUserId`.
   */
  say(groupId: number, selfId: number, lines: readonly Line[], contextKeywords: string, pokeUserId: number | null) {
    const time = Math.floor(this.#options.clock.nowMs() / 1000);
    const records = lines.map((line) =>
      this.records.add(groupId, {
        botId: selfId,
        time,
        preRawMessage: '',
        preKeywords: contextKeywords,
        reply: line.rawMessage,
        replyKeywords: line.keywords,
        messageId: null,
      }),
    );
    const sends = this.#sendDeps(groupId, selfId, () => undefined);
    this.#tasks.run('repeater-proactive', async () => {
      await sendReplies(records, sends);
      if (pokeUserId === null || this.#stopping) return;
      await this.#sleep(this.#settings.splitDelay);
      await this.#options.chat.sendGroupMessage(selfId, groupId, `[CQ:poke,qq=${pokeUserId}]`);
    });
  }

  #sendDeps(groupId: number, selfId: number, firstSent: () => void): ReplySendDeps {
    const settings = this.#settings;
    return {
      delay: (index) => this.#sleep(index === 0 ? settings.replyDelay : settings.splitDelay),
      stopping: () => this.#stopping,
      send: (reply) => this.#options.chat.sendGroupMessage(selfId, groupId, reply),
      banRefused: this.#account(selfId).banFailedSends
        ? (raw) => this.bans.ban({ groupId, botId: selfId, raw, reason: 'send failed', messageId: null })
        : null,
      firstSent,
    };
  }

  /**
   * "Try a sentence" (try-sentence.ts): what the bot would do with `message` in the group, answered
   * as account `selfId`, without sending, learning, caching or starting a cool-down.
   */
  trySentence(groupId: number, selfId: number, message: { rawMessage: string; plainText: string }) {
    return trySentenceIn(this.#state, groupId, selfId, message);
  }

  /** What the reply filter weighs a context's answers against, for this message in its group. */
  candidateInput(
    message: Pick<GroupChatMessage, 'groupId' | 'selfId'>,
    text: MessageText,
    context: Context,
    threshold: number,
    seen: { recentReplyKeywords: ReadonlySet<string>; recentRaws: ReadonlySet<string> },
  ): CandidateInput {
    return candidateInputOf(this.#state, message, text, context, threshold, seen);
  }

  get controls(): ChatControls {
    return this.#controls;
  }

  accountOf(selfId: number): AccountSettings {
    return this.#account(selfId);
  }

  nicknamesOf(selfId: number): readonly string[] {
    return this.#nicknames(selfId);
  }

  /** What learning from history reads (history-learn.ts): the state the live path uses. */
  historyDeps(): HistoryLearnDeps {
    return historyDepsOf(this.#state);
  }

  #account(selfId: number): AccountSettings {
    return this.#options.account?.(selfId) ?? EVERY_ACCOUNT;
  }

  #nicknames(selfId: number): readonly string[] {
    return withAccountNicknames(this.#settings.nicknames, this.#account(selfId));
  }

  #commandDeps(message: GroupChatMessage): CommandDeps {
    const { selfId, groupId } = message;
    const nowSec = Math.floor(this.#options.clock.nowMs() / 1000);
    const send = (text: string) =>
      this.#tasks.run('group-ack', () => this.#options.chat.sendGroupMessage(selfId, groupId, text));
    const members = this.#options.memberCommands;
    return {
      banFlow: this.#banFlow,
      ...(members ? { member: { handler: members, send } } : {}),
      group: () => ({
        admins: this.#account(selfId).admins,
        nowSec,
        save: (id, patch) => this.#controls.saveGroup(id, patch),
        send,
        record: commandRecorder(this.#options.activity ?? NO_ACTIVITY, message, nowSec, this.#tasks),
      }),
    };
  }

  #sleep(range: DelayRange): Promise<void> {
    return sleepBetween(range, this.#random, this.#options.sleep);
  }
}
