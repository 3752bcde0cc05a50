import { join } from 'node:path';
import { ConfigReactions, ConfigStore, ensurePrivateDir } from '../config/index.ts';
import { applyPendingRestore, replacePostgresTables, replaceSqliteFile } from '../ops/backup/index.ts';
import { BotConfigStore } from '../store/bot-config-store.ts';
import { ChatControlsStore } from '../store/chat-controls-store.ts';
import {
  FleetAccounts,
  fleetClaimsFor,
  followChanges,
  newChangeFeed,
  listsChangedHere,
  publishBan,
  publishLearned,
  type Publish,
} from './fleet-wiring.ts';
import { ReplyUsageStore } from '../store/reply-usage.ts';
import { openStore } from '../store/open-store.ts';
import { LogRing } from '../ops/logs/index.ts';
import { systemClock } from '../common/clock.ts';
import { LifecycleScope, stopWasClean, type StopReport } from '../common/lifecycle.ts';
import { errorMessage } from '../common/errors.ts';
import { waitAtMost } from '../common/timeout.ts';
import { ChatActivity, DecisionRing } from '../repeater/index.ts';
import { BotSettings } from './bot-settings.ts';
import { ChatControlsCache } from './chat-controls.ts';
import { requestsPort } from './requests.ts';
import { ChatLists } from './chat-lists.ts';
import { DailyActivity, listInstances } from './instances.ts';
import { ReplyUsageBuffer } from './reply-usage-buffer.ts';
import { serviceHealth } from './service-health.ts';
import { DailyStatsBuffer } from './daily-stats-buffer.ts';
import { decisionLogFor } from './decision-log-buffer.ts';
import { DecisionLogStore } from '../store/decision-log.ts';
import { ChorusMetrics } from './metrics.ts';
import { DailyStatsStore } from '../store/daily-stats.ts';
import { wireAgentMemory } from './agent-memory-wiring.ts';
import { wireChat } from './chat-wiring.ts';
import { wireAgentTasks } from './agent-tasks-wiring.ts';
import { loadConsoleAuth } from './console-auth-file.ts';
import { watchConfigFiles } from './config-watch.ts';
import { wireConsole } from './console-wiring.ts';
import { wireHistorySeeds } from './history-seeds.ts';
import { wireCatchphrases } from './agent-catchphrases-wiring.ts';
import { wireAgentChat, type AgentChatWiring } from './agent-chat-wiring.ts';
import { replySettings, wireCorpus } from './corpus-wiring.ts';
import { ChatLog } from './chat-log.ts';
import { LogOutput } from './log-output.ts';
import { createLogger, describeDatabase, loggingReaction } from './logger.ts';
import { readVersion } from './version.ts';

import type { RunningService, ServiceOptions } from './service-types.ts';

export type { RunningService, ServiceOptions } from './service-types.ts';

const DEFAULT_STOP_DEADLINE_MS = 5000;

/**
 * The composition root of `chorus serve`: builds every object from configuration, starts them in
 * order and owns their stop (docs/rules.md#style-owner). Nothing below src/app reads the environment or
 * knows the file layout; they get what they need here.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const config = await ConfigStore.open({
    env: options.env,
    ...(options.projectDir ? { projectDir: options.projectDir } : {}),
  });
  const snapshot = config.current();
  const serviceStartedAtMs = systemClock.nowMs();
  // The console's log pages read the same lines the logger writes.
  const logRing = new LogRing();
  const logOutput = new LogOutput(options.logDestination ?? process.stdout, snapshot.server.logFormat);
  const logger = createLogger({
    level: options.logLevel ?? snapshot.server.logLevel,
    ring: logRing,
    output: logOutput,
    ...(options.logDestination ? { destination: options.logDestination } : {}),
  });
  for (const warning of snapshot.warnings) logger.warn({ key: warning.key, source: warning.source }, warning.message);

  await ensurePrivateDir(snapshot.dataDir);
  // Before anything runs: a broken auth file stops startup with nothing to clean up.
  const auth = await loadConsoleAuth(snapshot.dataDir, snapshot.console.token !== '', logger, systemClock.nowMs());
  // A restore asked for before a restart is applied while the database is closed.
  await applyPendingRestore(
    snapshot.dataDir,
    join(snapshot.dataDir, 'backups'),
    snapshot.database.engine === 'sqlite'
      ? replaceSqliteFile(snapshot.database.file)
      : replacePostgresTables(snapshot.database.url, options.env),
    logger,
    Math.floor(systemClock.nowMs() / 1000),
  );
  const store = await openStore({
    databaseUrl: snapshot.database.engine === 'postgres' ? snapshot.database.url : '',
    dataDir: snapshot.dataDir,
    poolMax: snapshot.server.databasePoolMax,
    reply: replySettings(snapshot),
    onIdleError: (error) => logger.warn({ err: { message: error.message } }, 'idle database connection failed'),
    log: logger,
  });
  logger.info({ storage: describeDatabase(snapshot.database) }, 'corpus store ready');
  const startedAt = performance.now();
  const version = readVersion();
  const onTaskError = (label: string, error: unknown) =>
    logger.warn({ task: label, error: errorMessage(error) }, 'background task failed');
  // Every part starts in the order added and stops in reverse within one deadline (docs/ARCHITECTURE.md#lifecycle).
  const scope = new LifecycleScope('service', { onTaskError });
  scope.adopt({ name: 'store', stop: () => store.close() });
  // The singleton jobs (cleanup, maintenance, enrollment, heartbeat, backfill): one group, run
  // while this process is the primary, following the role when it changes.
  const primary = new LifecycleScope('primary', {
    onTaskError,
    active: () => config.current().server.shardRole === 'primary',
  });
  // Publishes to the other processes, tracked until the feed stops.
  const fleet = new LifecycleScope('fleet', { onTaskError });
  const publish: Publish = (topic, key) => fleet.tasks.run(`publish ${topic}`, () => changes.publish(topic, key));
  // Per-group and per-user controls, in memory: the repeater and the community mirror read them.
  const controls = new ChatControlsCache(new ChatControlsStore(store.engine), {
    log: logger,
    nowSec: () => Math.floor(systemClock.nowMs() / 1000),
    publish,
  });
  await controls.load();
  const corpus = wireCorpus(store, config, systemClock, logger, {
    version,
    // The heartbeat runs in the primary group, started once `chat` (built on the corpus) exists.
    botCounts: () => chat.botCounts(),
    shareGroup: (groupId) => controls.group(groupId).share,
    primary,
    // `metrics` is built below; nothing is learned before startService returns.
    onLearned: (lagMs) => {
      metrics.learned(lagMs);
      options.onLearned?.(lagMs);
    },
    // Only a fleet (other processes with accounts) has caches elsewhere to tell.
    onBatchLearned: (keys) => (fleetAccounts.others().size > 0 ? publishLearned(publish, keys) : undefined),
  });
  const usage = new ReplyUsageBuffer(new ReplyUsageStore(store.engine), logger);
  const botConfigStore = new BotConfigStore(store.engine);
  const botSettings = new BotSettings(botConfigStore, logger);
  // Today's messages and replies per account, for the console's instances view.
  const dailyActivity = new DailyActivity(() => systemClock.nowMs());
  await botSettings.load();
  // Every decision is also kept for the console (why it answered or not, per-minute activity):
  // a few increments and one small object per message, nothing awaited.
  const decisions = new DecisionRing();
  const activity = new ChatActivity();
  const daily = new DailyStatsBuffer(new DailyStatsStore(store.engine), logger);
  const decisionStore = new DecisionLogStore(store.engine);
  const decisionLog = decisionLogFor(decisionStore, logger, systemClock, () => config.current().repeater);
  // Read when scraped; `chat` exists by then.
  const metrics = new ChorusMetrics({
    queues: () => ({
      learning: corpus.runtime.learning.queue.size,
      mirror: corpus.runtime.mirror.queue.size,
    }),
    counters: () => ({
      ...corpus.counters(),
      learning: { ...corpus.runtime.learning.counters },
      bundle_cache: { ...chat.repeater.bundles.counters },
      chat_log: { ...chat.repeater.messageLog.counters },
      onebot: { ...chat.onebot.dropped() },
      milky: { ...chat.milky.dropped() },
      reply_usage: { ...usage.counters },
      daily_stats: { ...daily.counters },
    }),
    bundleCache: () => ({ ...chat.repeater.bundles.counters }),
  });
  const changes = newChangeFeed(store.engine, snapshot.database, logger, systemClock);
  const claims = fleetClaimsFor(snapshot.server.fleetClaims, store.engine, changes.origin, logger, systemClock);
  const fleetAccounts = new FleetAccounts(changes, publish);
  const claimNow = () => snapshot.server.fleetClaims === true || fleetAccounts.others().size > 0;
  // The model path is built after the chat side it follows: the hook reaches it once it exists.
  const decidedHook: { agent?: AgentChatWiring } = {};
  // Member memory of the agent platform (docs/agent-memory.md); the model is connected when configured.
  const agentMemory = wireAgentMemory({
    engine: store.engine,
    activity: store.activity,
    // The background model as configured now (the model path is built after the chat side).
    model: () => decidedHook.agent?.model(),
    owner: changes.origin,
    nowMs: () => systemClock.nowMs(),
    log: logger,
  });
  const chatLog = new ChatLog({ mode: () => config.current().server.logChat, logger, logRing, logOutput });
  // Built before the chat side: its model replies read the approved catchphrases (catchphrases.hints).
  const catchphrases = wireCatchphrases({ store, config, primary, clock: systemClock, log: logger });
  const chat = await wireChat({
    // 「我的提醒」/「取消提醒」 are answered by the reminders (agent-tasks-wiring.ts), not the model.
    onMessageDecided: (message, decision) => {
      const agent = decidedHook.agent; // set once the reminders and the model path exist
      if (agent && !agentTasks.isCommand(message)) agent.consider(message, decision);
    },
    config,
    store,
    corpus,
    botSettings,
    controls,
    onAnswerSent: (sent) => usage.add(sent),
    clock: systemClock,
    log: logger,
    onDecision: (decision) => {
      const now = systemClock.nowMs();
      decisions.record(decision, now);
      decisionLog.record(decision, now);
      activity.record(decision, now);
      dailyActivity.record(decision);
      daily.record(decision, now);
      metrics.record(decision);
      chatLog.decided(decision);
      options.onDecision?.(decision);
    },
    ...(options.random ? { random: options.random } : {}),
    // `auto` claims only once another process has accounts: alone, a claim is a round trip for nothing.
    ...(claims
      ? { claim: (key: string, groupId: number) => (claimNow() ? claims.claim(key, groupId) : undefined) }
      : {}),
    onBanned: (groupId, keywords) => publishBan(publish, groupId, keywords),
    primary,
    fleetAccounts: () => fleetAccounts.others(),
    memberCommands: agentMemory.commands,
  });
  chat.platforms.on('group_message', (message, meta) => chatLog.received(message, meta.sentBySelf));
  const agentTasks = wireAgentTasks({ store, chat, config, clock: systemClock, log: logger });
  const agentChat = wireAgentChat({
    config,
    engine: store.engine,
    repeater: chat.repeater,
    keywords: chat.keywords,
    botIds: () => new Set([...chat.platforms.bots().map((bot) => bot.selfId), ...fleetAccounts.others()]),
    clock: systemClock,
    log: logger,
    ...(options.random ? { random: options.random } : {}),
    style: catchphrases.hints,
    memory: agentMemory.memory,
    tools: agentTasks.toolbox,
  });
  decidedHook.agent = agentChat;
  fleetAccounts.follow(chat.platforms);
  // A corpus change made here (console moderation) or in another process on the same database:
  // every cache that may hold the key's context goes, so the next message sees the change.
  // A key learned elsewhere: its snapshot and find-cache entries go (the latter tells the repeater
  // to forget its cached misses), as a learn here does.
  const forgetLearnedKey = (keywords: string) => {
    store.corpus.invalidateSnapshots(keywords);
    corpus.runtime.composite.invalidateFindCache(keywords);
  };
  const dropCorpusCaches = (keywords: string) => {
    forgetLearnedKey(keywords);
    // Reply bundles are keyed by message hash, not by keywords: all of them go.
    chat.repeater.bundles.clear();
  };
  const chatLists = new ChatLists(
    (selfId, action, params) => chat.platforms.call(selfId, action, params),
    () => systemClock.nowMs(),
  );
  const bans = chat.repeater.bans;
  followChanges(changes, fleet.tasks, { dropCorpusCaches, forgetLearnedKey, botSettings, controls, bans, log: logger });
  // Cached reply bundles were chosen under the old thresholds and sharing: they go.
  controls.onChange(() => chat.repeater.bundles.clear());
  // One table of configuration reactions, each owned by the part it drives, run once per change
  // (docs/rules.md#cfg-events); the console's save reports the same run.
  const reactions = new ConfigReactions(
    [...corpus.reactions, ...chat.reactions, loggingReaction(logger, logOutput, options.logLevel !== undefined)],
    logger,
  );
  const unfollow = reactions.follow(config);
  // Hand edits of chorus.toml and .env apply while running, through the same reactions.
  const configWatch = watchConfigFiles(config, reactions, logger, () => systemClock.nowMs());
  const historySeeds = wireHistorySeeds({
    chat,
    learning: corpus.runtime.learning,
    controls,
    activity: store.activity,
    clock: systemClock,
    log: logger,
  });
  chat.onebot.on('bot_connected', () => historySeeds.accountJoined(controls.groups()));
  const consoleWiring = wireConsole({
    reactions,
    config,
    store,
    corpus,
    logger,
    clock: systemClock,
    version,
    auth,
    env: options.env,
    runningPlugins: ['repeater', 'onebot', 'community_stats'],
    logs: { ring: logRing },
    startedAtMs: serviceStartedAtMs,
    metrics,
    dailyStats: daily,
    watch: {
      decisions,
      activity,
      nickname: async (selfId) => (await chat.platforms.getLoginInfo(selfId)).nickname || null,
      answers: (lookup) => chat.knownAnswers(lookup),
      log: {
        page: (q) => decisionLog.flush().then(() => decisionStore.page(q)),
        groups: (n) => decisionStore.groups(n),
      },
      trySentence: (groupId, selfId, message) => chat.repeater.trySentence(groupId, selfId, message),
    },
    ...(options.restart ? { restart: options.restart } : {}),
    ...(options.ai ? { ai: options.ai } : {}),
    connectedBots: () => chat.platforms.bots(),
    forwardTargets: chat.forward,
    media: () => chat.media(),
    historySeeds,
    agentCatchphrases: catchphrases.port,
    agentMemory: agentMemory.console,
    agentChat: agentChat.port,
    keywords: chat.keywords,
    onBotConfigSaved: (saved) => {
      botSettings.set(saved);
      publish('bot-config', String(saved.account));
    },
    requests: requestsPort(chat.requests),
    instances: {
      list: () =>
        listInstances({
          bots: () => chat.platforms.bots(),
          configs: () => botConfigStore.list(),
          config: (selfId) => botSettings.get(selfId),
          nickname: async (selfId) => (await chat.platforms.getLoginInfo(selfId)).nickname,
          lists: chatLists,
          activity: dailyActivity,
        }),
      disconnect: (selfId) => chat.platforms.disconnect(selfId),
      groupActivity: (selfId) => dailyActivity.groupsOf(selfId),
    },
    chatLists,
    // Proposed until the operator decides (confirming sets `bot`, dismissing saves it false).
    suspectedBots: () => chat.suspects.proposed().filter((suspect) => controls.user(suspect.userId).updatedAt === 0),
    onGroupConfigSaved: (saved) => {
      const before = controls.group(saved.groupId);
      controls.groupSaved(saved);
      historySeeds.afterSave(before, saved);
    },
    onUserConfigSaved: (saved) => controls.userSaved(saved),
    controlChanges: (listener) => controls.onChange(listener),
    ...(options.webRoot !== undefined ? { webRoot: options.webRoot } : {}),
    ...(options.update ? { update: options.update } : {}),
    ...(options.requestRestart ? { requestRestart: options.requestRestart } : {}),
    // The console drops this process's snapshot and find caches itself.
    corpusChanged: (keywords) => {
      chat.repeater.bundles.clear();
      publish('corpus', keywords);
    },
    listsChanged: listsChangedHere(bans, publish),
    health: serviceHealth({
      version,
      store,
      corpus,
      chat,
      usage,
      changes,
      configWatch,
      claims,
      claimNow,
      fleetAccounts,
      startedAt,
    }),
  });
  const server = consoleWiring.server;
  // The OneBot endpoint shares the console's HTTP server, outside {base_url}/api.
  chat.attach(server.server);

  scope.add(corpus.scope, { budget: (left) => left - 1000 });
  // The hello asks the other processes for their accounts once this feed can hear the answers.
  const startFeed = async () => (await changes.start(), fleetAccounts.hello());
  fleet.add({ name: 'change feed', start: startFeed, stop: () => changes.stop() });
  scope.add(fleet);
  const listen = { host: snapshot.server.host, port: snapshot.server.port };
  scope.add({ name: 'console', start: () => server.listen(listen), stop: () => server.close() });
  scope.add(agentMemory.part, { budget: (left) => Math.min(1000, left / 4) });
  // Running since built: a failed listen stops them too.
  scope.adopt({ name: 'daily stats', stop: () => daily.stop() });
  scope.adopt({ name: 'decision log', stop: () => decisionLog.stop() });
  scope.adopt({ name: 'reply usage', stop: () => usage.stop() });
  if (claims) scope.adopt({ name: 'fleet claims', stop: () => claims.stop() });
  // Replies in flight are sent and blacklists saved before the connections close.
  scope.adopt(chat, { budget: (left) => Math.min(1500, left / 3) });
  // Stopped before the chat side: no reminder starts a send on a closing connection.
  scope.adopt(
    { name: 'agent tasks', stop: (ms) => agentTasks.stop(ms) },
    { budget: (left) => Math.min(1000, left / 4) },
  );
  // Stopped before the chat side: model calls under way end, so no answer is said after it stops.
  scope.adopt({ name: 'agent chat', stop: (ms) => agentChat.stop(ms) });
  // Stopped before the chat side: a seed under way stops offering before the learning queue drains.
  scope.adopt({ name: 'history seeds', stop: (ms) => historySeeds.stop(ms) });
  scope.add(primary, { budget: (left) => Math.min(1000, left / 4) });
  // Stopped first: a save's steps still running (a prefetch restart waits up to a second) finish,
  // so none restarts a part stopped after; a stuck one is not waited for past a quarter.
  scope.adopt(
    { name: 'config reactions', stop: (ms) => (unfollow(), waitAtMost(reactions.settled(), ms)) },
    { budget: (left) => left / 4 },
  );
  // Started last, stopped first: no edit starts a reload once the parts begin to stop.
  scope.add(
    { name: 'config file watch', start: () => configWatch.start(), stop: (ms) => waitAtMost(configWatch.stop(), ms) },
    { budget: (left) => left / 4 },
  );
  // A failed start has stopped what did start, in reverse, and closed the store.
  await scope.start();
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : snapshot.server.port;
  const consoleUrl = `http://${formatHost(snapshot.server.host)}:${port}${snapshot.server.baseUrl}/`;
  logger.info(`console listening at ${consoleUrl}`);

  // Rejects when the deadline ran out or a part failed; a child part given up on within its share
  // (a heartbeat stuck on a black-holed hub) is only reported.
  let stopping: Promise<void> | undefined;
  const stop = (deadlineMs = DEFAULT_STOP_DEADLINE_MS): Promise<void> =>
    (stopping ??= scope.stop(deadlineMs).then((report) => {
      if (report.outOfTime || report.failed.length > 0) throw new Error(unclean(report, deadlineMs));
      if (!stopWasClean(report)) logger.warn({ gaveUpOn: [...report.timedOut, ...report.tasksLeft] }, 'stopped');
      else logger.info('stopped');
    }));
  return { config, store, corpus, chat, agentTasks, agentMemory, server, logger, consoleUrl, stop };
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** What a stop left undone, as the error the caller sees (the process then exits). */
function unclean(report: StopReport, deadlineMs: number): string {
  const late = [...report.timedOut, ...report.tasksLeft].join(', ');
  const failed = report.failed.map((each) => `${each.part}: ${each.error}`).join('; ');
  return `shutdown within ${deadlineMs} ms: out of time ${report.outOfTime}, not done [${late}], failed [${failed}]`;
}
