import type { MemberCommandHandler } from '../repeater/member-command.ts';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { ConfigReaction, ConfigStore, OnebotConfig } from '../config/index.ts';
import { MilkyAdapter, parseMilkyTargets } from '../milky/index.ts';
import {
  ForwardDialer,
  MediaCache,
  OneBotServer,
  PictureKeepingChat,
  type LivenessSettings,
  type MediaCacheLimits,
} from '../onebot/index.ts';
import { ChatPlatforms } from './chat-platforms.ts';
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
import type { GroupChatMessage } from '../domain/chat.ts';
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
import { rejectsMessage } from '../domain/guard.ts';
import { ProactiveSpeaker } from '../repeater/proactive.ts';
import { systemRandom } from '../repeater/random.ts';
import { IntervalJob } from '../workers/interval-job.ts';

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
  /** 「记住我」/「忘记我」 of the agent memory (agent-memory-wiring.ts); absent: not recognised. */
  memberCommands?: MemberCommandHandler;
  /** Told each group message once the repeater decided it (the model path, src/app/agent-chat-wiring.ts). */
  onMessageDecided?: (message: GroupChatMessage, decision: RepeaterDecision) => void;
}

export interface ChatWiring extends LifecyclePart {
  readonly onebot: OneBotServer;
  /** Forward WebSocket: the implementations' servers this process dials (CHORUS_ONEBOT_CONNECT). */
  readonly forward: ForwardDialer;
  /** Milky implementations Chorus dials (CHORUS_MILKY_CONNECT). */
  readonly milky: MilkyAdapter;
  /** The chat port over both: events, actions and accounts whatever the protocol. */
  readonly platforms: ChatPlatforms;
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
  /** Accept OneBot connections on the console's HTTP server (path /onebot/v11/ws) and start dialling. */
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
    liveness: livenessSettings(snapshot.onebot),
    log,
    now: () => clock.nowMs(),
  });
  const forward = new ForwardDialer({ adopter: onebot, log, now: () => clock.nowMs() });
  forward.setTargets(snapshot.onebot.connect);
  const milkyTargets = parseMilkyTargets(snapshot.milky.connect);
  // The section's check lets only well-formed lists through; this is a second line, naming no token.
  for (const problem of milkyTargets.problems) log.warn({ problem }, 'CHORUS_MILKY_CONNECT entry ignored');
  const milky = new MilkyAdapter({
    targets: milkyTargets.targets,
    actionTimeoutMs: snapshot.onebot.actionTimeoutSec * 1000,
    log,
    now: () => clock.nowMs(),
  });
  const platforms = new ChatPlatforms(onebot, milky);
  // Learned pictures stay sendable after the implementation forgot them (docs/rules.md#media).
  const media = new MediaCache({ dir: join(snapshot.dataDir, 'media'), log, ...mediaLimits(snapshot.onebot) });
  await media.start();
  const chat = new PictureKeepingChat(platforms, media, log);
  // The fleet's accounts are bots here as much as this process's own (docs/rules.md#fleet-accounts).
  const ownAccounts = () =>
    new Set([...platforms.bots().map((bot) => bot.selfId), ...(options.fleetAccounts?.() ?? [])]);
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
    ...(options.memberCommands ? { memberCommands: options.memberCommands } : {}),
  });
  await repeater.start();
  // Proactive speech runs beside the message path, never on it (docs/repeater.md#proactive-speech).
  const speaker = new ProactiveSpeaker({
    repeater,
    clock,
    random: options.random ?? systemRandom,
    guarded: (raw) => rejectsMessage(config.current().guard, raw),
    ...(options.claim ? { claim: options.claim } : {}),
  });
  const proactiveMs = () => repeater.settings.proactive.checkMs;
  const proactiveJob = new IntervalJob({
    label: 'proactive speech',
    firstDelayMs: proactiveMs(),
    intervalMs: proactiveMs(),
    run: async () => {
      await speaker.check();
      // Nothing left to wait for: the job sleeps until a member speaks in a group switched on.
      if (!speaker.anyWaiting()) void proactiveJob.stop();
    },
    log,
  });
  // Per message: a boolean, and while the check sleeps one controls lookup in memory.
  repeater.quiet.onWaiting = (groupId) => {
    if (!proactiveJob.started && speaker.switchedOn(groupId)) proactiveJob.start();
  };
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
  platforms.on('group_message', (message) => {
    suspects.observe(message, knownBot);
    handling.run('group message', async () => {
      const decision = await repeater.onGroupMessage(message);
      options.onMessageDecided?.(message, decision);
      // A learned picture may be sent again later: its bytes are fetched now, while its URL is valid.
      if (decision.learn === 'queued') chat.rememberPictures(message.pictures);
    });
  });
  platforms.on('group_recall', (recall) => handling.run('group recall', () => repeater.onGroupRecall(recall)));
  // Only the bot's own mute, or the whole group's, keeps proactive speech quiet (no end given: a month).
  onebot.on('group_mute', (mute) => {
    if (mute.userId !== 0 && mute.userId !== mute.selfId) return;
    const durationMs = mute.durationSec < 0 ? 30 * 86_400_000 : mute.durationSec * 1000;
    repeater.quiet.mute(mute.groupId, mute.userId, durationMs, clock.monotonicMs());
  });
  const requests = new RequestDesk({
    store: new RequestStore(store.engine),
    chat: platforms,
    settings: options.botSettings ?? { get: defaultBotConfig },
    log,
    nowSec: () => Math.floor(clock.nowMs() / 1000),
  });
  platforms.on('request', (request) => handling.run('request', () => requests.onRequest(request)));

  const reactions: ConfigReaction[] = [
    {
      step: 'apply_repeater_settings',
      sections: ['repeater'],
      run: (change) => {
        const before = proactiveMs();
        repeater.applySettings(fromRepeaterConfig(change.current.repeater));
        if (proactiveMs() !== before)
          proactiveJob.reschedule({ firstDelayMs: proactiveMs(), intervalMs: proactiveMs() });
        return { detail: 'repeater settings applied' };
      },
    },
    maintenanceReaction(options.primary, () => config.current().repeater.maintenanceHour),
    {
      step: 'apply_onebot',
      // Both protocols' connections: the Milky list is on the same console page.
      sections: ['onebot', 'milky'],
      run: async (change) => {
        const done: string[] = [];
        milky.applyTimeout(change.current.onebot.actionTimeoutSec * 1000);
        if (change.changedKeys.some((key) => key.startsWith('CHORUS_ONEBOT_'))) {
          done.push(
            onebot.applySettings({
              accessToken: change.current.onebot.accessToken,
              actionTimeoutMs: change.current.onebot.actionTimeoutSec * 1000,
              liveness: livenessSettings(change.current.onebot),
            }),
          );
        }
        if (change.changedKeys.includes('CHORUS_ONEBOT_CONNECT'))
          done.push(forward.setTargets(change.current.onebot.connect));
        if (change.changedKeys.includes('CHORUS_MILKY_CONNECT')) {
          const { targets, problems } = parseMilkyTargets(change.current.milky.connect);
          for (const problem of problems) log.warn({ problem }, 'CHORUS_MILKY_CONNECT entry ignored');
          done.push(await milky.applyTargets(targets));
        }
        const mediaDone = media.applyLimits(mediaLimits(change.current.onebot));
        if (mediaDone !== '') done.push(mediaDone);
        return { detail: done.join('; ') };
      },
    },
  ];

  // Dialling is asynchronous: every listener here and in the service is on before the first event.
  milky.start();
  let detach: (() => void) | undefined;
  return {
    name: 'chat',
    onebot,
    forward,
    milky,
    platforms,
    repeater,
    keywords,
    requests,
    suspects,
    reactions,
    maintenance,
    attach(server) {
      detach = onebot.attach(server);
      forward.start();
    },
    botCounts: () => {
      const bots = platforms.bots();
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
    counters: () => ({
      repeater: { ...Object.fromEntries(repeater.decisions) },
      proactive: {
        said: repeater.decisions.get('proactive') ?? 0,
        skipped: repeater.decisions.get('proactive-skipped') ?? 0,
        checks: proactiveJob.counters.runs,
        check_failures: proactiveJob.counters.failures,
      },
    }),
    media: () => chat.counters(),
    pictures: chat,
    async stop(deadlineMs) {
      stopForgetting();
      const deadline = deadlineFrom(() => clock.monotonicMs(), deadlineMs);
      await proactiveJob.stop();
      await handling.drain(deadline.left());
      await repeater.stop(deadline.left());
      detach?.();
      // Stop dialling first (synchronous), then the endpoints close every socket, dialled ones too.
      const dialled = forward.close();
      await Promise.all([onebot.close(), milky.close()]);
      await dialled;
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

/** The liveness keys of the onebot section, in the adapter's milliseconds (src/onebot/liveness.ts). */
function livenessSettings(onebot: OnebotConfig): LivenessSettings {
  return {
    pingIntervalMs: onebot.pingIntervalSec * 1000,
    pongTimeoutMs: onebot.pongTimeoutSec * 1000,
    heartbeatMissedMax: onebot.heartbeatMissedMax,
  };
}

/** The media cache's bounds from the OneBot section (issue 30). */
function mediaLimits(onebot: OnebotConfig): MediaCacheLimits {
  return { budgetBytes: onebot.mediaCacheMb * 1024 * 1024, pictureMaxBytes: onebot.mediaPictureMaxKb * 1024 };
}
