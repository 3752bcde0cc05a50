import type { Server } from 'node:http';
import type { ConfigReaction, ConfigStore } from '../config/index.ts';
import { join } from 'node:path';
import type { OnebotConfig } from '../config/sections/onebot.ts';
import { MediaCache, OneBotServer, PictureKeepingChat, type MediaCacheLimits } from '../onebot/index.ts';
import {
  fromRepeaterConfig,
  judgeAnswers,
  KeywordExtractor,
  Repeater,
  RepeaterMaintenance,
  type AccountSettings,
  type AnswerView,
  type ChatControls,
  type AnswerSent,
  type ClaimVerdict,
  type RandomSource,
  type RepeaterDecision,
} from '../repeater/index.ts';
import type { Clock } from '../common/clock.ts';
import type { LifecyclePart, LifecycleScope } from '../common/lifecycle.ts';
import type { Log } from '../common/log.ts';
import { defaultBotConfig } from '../store/bot-config-store.ts';
import { RequestStore } from '../store/request-store.ts';
import type { LocalStore } from '../store/open-store.ts';
import { REPEATER_PLUGIN, type BotSettings } from './bot-settings.ts';
import { RequestDesk } from './requests.ts';
import { BotSuspects } from '../repeater/bot-suspects.ts';
import type { BotCounts } from './community-wiring.ts';
import type { CorpusWiring } from './corpus-wiring.ts';
import { errorMessage } from '../common/errors.ts';
import { TaskSet } from '../common/task-set.ts';
import { deadlineFrom } from '../common/timeout.ts';

/** Known answers shown per decision on the console's Why page. */
const DECISION_ANSWERS_SHOWN = 10;
/** Answer counts below this are deleted with their context once expired (docs/rules.md#maintenance). */
const MAINTENANCE_ANSWER_THRESHOLD = 3;

export interface ChatWiringOptions {
  config: ConfigStore;
  store: LocalStore;
  corpus: CorpusWiring;
  clock: Clock;
  log: Log;
  /** Told every reply decision (the demo prints them, the benchmark measures them). */
  onDecision?: (decision: RepeaterDecision) => void;
  /** A seeded source for reproducible runs (demo, tests); the default is Math.random. */
  random?: RandomSource;
  /** Per-account settings (console bot-configs); without them every account runs as default. */
  botSettings?: BotSettings;
  /** Told each corpus answer sent (the console's "where used"). */
  onAnswerSent?: (sent: AnswerSent) => void;
  /** Per-group and per-user controls (console group-configs / user-configs), in memory. */
  controls?: ChatControls;
  /** The fleet claim on a message (docs/rules.md#fleet-claims); absent: every message is handled here. */
  claim?: (key: string, groupId: number) => Promise<ClaimVerdict> | undefined;
  /** Told after each ban is written (the other processes must apply it). */
  onBanned?: (groupId: number, contextKeywords: string) => void;
  /** The singleton jobs' group (src/app/service.ts): the daily maintenance joins it. */
  primary: LifecycleScope;
  /** The accounts connected to the fleet's other processes (docs/rules.md#fleet-accounts). */
  fleetAccounts?: () => ReadonlySet<number>;
}

export interface ChatWiring extends LifecyclePart {
  readonly onebot: OneBotServer;
  readonly repeater: Repeater;
  readonly maintenance: RepeaterMaintenance;
  /** The friend and group request inbox. */
  readonly requests: RequestDesk;
  /** Members that answer commands like a bot, to propose in the console. */
  readonly suspects: BotSuspects;
  /** The repeater's keyword extraction (the console's corpus search turns a sentence into keywords with it). */
  readonly keywords: KeywordExtractor;
  /** What the chat side does when its settings change (docs/rules.md#cfg-events). */
  readonly reactions: readonly ConfigReaction[];
  /** Accept OneBot connections on the console's HTTP server (path /onebot/v11/ws). */
  attach(server: Server): void;
  /** For the community heartbeat. */
  botCounts(): BotCounts;
  /** The known answers to a message's keywords, judged as the corpus stands now (the Why page). */
  knownAnswers(lookup: { groupId: number; keywords: string; threshold: number | null }): Promise<AnswerView[]>;
  counters(): Record<string, Record<string, number>>;
  /** The media cache's figures and the picture sends it rescued (the console's database page). */
  media(): ReturnType<PictureKeepingChat['counters']>;
  /** The chat actions the repeater sends through, keeping learned pictures sendable. */
  readonly pictures: PictureKeepingChat;
  /** Drains the repeater's sends and saves, then closes the connections. */
  stop(deadlineMs: number): Promise<void>;
}

/**
 * The chat side of `chorus serve`: the OneBot v11 endpoint feeding the repeater, which learns
 * through the corpus runtime's learning queue and answers through the same connections.
 */
export async function wireChat(options: ChatWiringOptions): Promise<ChatWiring> {
  const { config, store, corpus, clock, log } = options;
  const snapshot = config.current();
  const onebot = new OneBotServer({
    accessToken: snapshot.onebot.accessToken,
    actionTimeoutMs: snapshot.onebot.actionTimeoutSec * 1000,
    log,
    now: () => clock.nowMs(),
  });
  // Learned pictures stay sendable after the implementation forgot them (docs/rules.md#media).
  const media = new MediaCache({ dir: join(snapshot.dataDir, 'media'), log, ...mediaLimits(snapshot.onebot) });
  await media.start();
  const chat = new PictureKeepingChat(onebot, media, log);
  // The fleet's accounts are bots here as much as this process's own (docs/rules.md#fleet-accounts).
  const ownAccounts = () => new Set([...onebot.bots().map((bot) => bot.selfId), ...(options.fleetAccounts?.() ?? [])]);
  const keywords = new KeywordExtractor();
  // The dictionary loads in about half a second: start it now, without holding up start-up.
  setImmediate(() => keywords.warm());
  const repeater = new Repeater({
    settings: fromRepeaterConfig(snapshot.repeater),
    keywords,
    corpus: corpus.runtime.composite,
    learning: corpus.runtime.learning,
    pressure: store.engine,
    chat,
    messageLog: store.messages,
    blacklists: store.blacklists,
    activity: store.activity,
    botIds: () => ownAccounts(),
    clock,
    log,
    ...(options.random ? { random: options.random } : {}),
    ...(options.onDecision ? { onDecision: options.onDecision } : {}),
    ...(options.botSettings ? { account: accountSettings(options.botSettings) } : {}),
    ...(options.onAnswerSent ? { onAnswerSent: options.onAnswerSent } : {}),
    ...(options.controls ? { controls: options.controls } : {}),
    ...(options.claim ? { claim: options.claim } : {}),
    ...(options.onBanned ? { onBanned: options.onBanned } : {}),
  });
  await repeater.start();
  // Whatever changes a stored context (a learn write above all) drops the repeater's cached misses
  // for its key: a phrase taught a moment ago answers the next time it is asked.
  const stopForgetting = corpus.runtime.composite.onKeyChanged((changed) => {
    if (changed === undefined) repeater.bundles.clear();
    else repeater.bundles.forgetMisses(changed);
  });
  // Run by the primary group only; `restart_maintenance` restarts it there.
  const maintenance = options.primary.add(
    new RepeaterMaintenance({
      corpus: corpus.runtime.composite,
      blacklists: repeater.bans,
      hour: () => config.current().repeater.maintenanceHour,
      answerThreshold: MAINTENANCE_ANSWER_THRESHOLD,
      clock,
      log,
    }),
  );

  // Each event's handling is tracked: the stop lets those under way finish before the repeater's.
  const handling = new TaskSet((what, error) => log.warn({ error: errorMessage(error) }, `${what} failed`));
  const suspects = new BotSuspects();
  const knownBot = (userId: number) => ownAccounts().has(userId) || options.controls?.user(userId).bot === true;
  onebot.on('group_message', (message) => {
    suspects.observe(message, knownBot);
    handling.run('group message', async () => {
      const decision = await repeater.onGroupMessage(message);
      // A learned picture may be sent again later: its bytes are fetched now, while its URL is valid.
      if (decision.learn === 'queued') chat.rememberPictures(message.pictures);
    });
  });
  onebot.on('group_recall', (recall) => handling.run('group recall', () => repeater.onGroupRecall(recall)));
  const requests = new RequestDesk({
    store: new RequestStore(store.engine),
    onebot,
    settings: options.botSettings ?? { get: defaultBotConfig },
    log,
    nowSec: () => Math.floor(clock.nowMs() / 1000),
  });
  onebot.on('request', (request) => handling.run('request', () => requests.onRequest(request)));

  const reactions: ConfigReaction[] = [
    {
      step: 'apply_repeater_settings',
      sections: ['repeater'],
      run: (change) => {
        repeater.applySettings(fromRepeaterConfig(change.current.repeater));
        return { detail: 'repeater settings applied' };
      },
    },
    maintenanceReaction(options.primary, () => config.current().repeater.maintenanceHour),
    {
      step: 'apply_onebot',
      sections: ['onebot'],
      run: (change) => ({
        detail: [
          onebot.applySettings({
            accessToken: change.current.onebot.accessToken,
            actionTimeoutMs: change.current.onebot.actionTimeoutSec * 1000,
          }),
          media.applyLimits(mediaLimits(change.current.onebot)),
        ]
          .filter((text) => text !== '')
          .join('; '),
      }),
    },
  ];

  let detach: (() => void) | undefined;
  return {
    name: 'chat',
    onebot,
    repeater,
    keywords,
    requests,
    suspects,
    reactions,
    maintenance,
    attach(server) {
      detach = onebot.attach(server);
    },
    botCounts: () => {
      const bots = onebot.bots();
      const worker = config.current().server.shardRole === 'worker';
      return {
        online_bots: bots.filter((bot) => bot.online).length,
        catalog_bots: bots.length,
        sharded: worker,
        shard_workers: null,
      };
    },
    knownAnswers: async ({ groupId, keywords, threshold }) => {
      const context = await store.corpus.findByKeywords(keywords);
      if (!context) return [];
      const { answerThreshold, crossGroupThreshold } = fromRepeaterConfig(config.current().repeater);
      const banned = repeater.bans.bannedFor(context, groupId);
      const judge = { groupId, messageKeywords: keywords, threshold: threshold ?? answerThreshold };
      return judgeAnswers(context.answers, { ...judge, crossGroupThreshold, banned }, DECISION_ANSWERS_SHOWN);
    },
    media: () => chat.counters(),
    pictures: chat,
    counters: () => ({ repeater: { ...Object.fromEntries(repeater.decisions) } }),
    async stop(deadlineMs) {
      stopForgetting();
      const deadline = deadlineFrom(() => clock.monotonicMs(), deadlineMs);
      await handling.drain(deadline.left());
      await repeater.stop(deadline.left());
      detach?.();
      await onebot.close();
      await media.close();
    },
  };
}

/**
 * A new hour or role restarts the maintenance through the group, one restart at a time: one that
 * overlaps a stop or another restart waits for it, and none starts it again once stopped.
 */
export function maintenanceReaction(primary: LifecycleScope, hour: () => number): ConfigReaction {
  return {
    step: 'restart_maintenance',
    keys: ['CHORUS_REPEATER_MAINTENANCE_HOUR', 'CHORUS_SHARD_ROLE'],
    run: () => {
      // Not awaited by the save (a round in progress may take a while), but tracked by the group.
      primary.tasks.run('restart maintenance', () => primary.restart('maintenance'));
      return { detail: `maintenance rescheduled (hour ${hour()})` };
    },
  };
}

/** The repeater's view of an account's console settings. */
function accountSettings(settings: BotSettings): (selfId: number) => AccountSettings {
  return (selfId) => {
    const config = settings.get(selfId);
    return {
      enabled: !config.disabledPlugins.includes(REPEATER_PLUGIN),
      nicknames: config.nicknames,
      banFailedSends: config.security,
      admins: new Set(config.admins),
    };
  };
}

/** The media cache's bounds from the OneBot section (issue 30). */
function mediaLimits(onebot: OnebotConfig): MediaCacheLimits {
  return { budgetBytes: onebot.mediaCacheMb * 1024 * 1024, pictureMaxBytes: onebot.mediaPictureMaxKb * 1024 };
}
