/**
 * Builds the console from the running service: credentials from config plus the stored auth file,
 * the corpus read model, the bot-config store. A save reports the run of the configuration
 * reactions the composition root assembled (src/config/reactions.ts, docs/rules.md#cfg-events).
 */
import { agentTasksPort } from './agent-tasks-wiring.ts';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { ConfigSnapshot, ConfigStore } from '../config/index.ts';
import type { ConsoleCredentials } from '../console/auth.ts';
import type { ChangeReactions, ConsoleDeps, CorpusModeration, MediaOverview } from '../console/deps.ts';
import type { HealthSource } from '../console/health.ts';
import type { PluginName } from '../console/plugins.ts';
import { createConsoleServer, type ConsoleApp } from '../console/server.ts';
import { aggregateLocalHotKeywords } from '../corpus/local-hot.ts';
import type { CorpusStatus } from '../corpus/status.ts';
import type { Clock } from '../common/clock.ts';
import { DailyStatsStore } from '../store/daily-stats.ts';
import { BotConfigStore, defaultBotConfig, type BotConfig } from '../store/bot-config-store.ts';
import { ChatControlsStore } from '../store/chat-controls-store.ts';
import { RequestStore } from '../store/request-store.ts';
import { NO_CHAT_ACTIONS, RequestDesk, requestsPort } from './requests.ts';
import type { ChatListsPort, InstancesPort, RequestsPort, SuspectedBot } from '../console/deps.ts';
import { agentChatPort } from './agent-chat-wiring.ts';
import { AgentChatLedgerStore } from '../store/agent-chat-ledger.ts';
import { noHistorySeeds } from './history-seeds.ts';
import { standaloneCatchphrases } from './agent-catchphrases-wiring.ts';
import { ChatLists } from './chat-lists.ts';
import {
  type ChatControlChange,
  defaultGroupConfig,
  defaultUserConfig,
  type GroupConfig,
  type UserConfig,
} from '../domain/chat-controls.ts';
import { CorpusBrowser, DETAIL_VIEW } from '../store/corpus-browse.ts';
import { ModerationStore } from '../store/moderation-store.ts';
import { describeText, KeywordExtractor } from '../repeater/keywords.ts';
import { GLOBAL_BAN_GROUP } from '../repeater/limits.ts';
import type { LocalStore } from '../store/open-store.ts';
import { BACKUP_JOB, BackupService, findPgTools, type PgTools } from '../ops/backup/index.ts';
import { CorpusJobs } from '../ops/corpus-file/index.ts';
import { JobRegistry } from '../ops/jobs/index.ts';
import { RetentionService } from '../ops/retention/index.ts';
import { currentSchema, databaseOverview, tableRows } from '../store/database-overview.ts';
import { MessageRetention } from '../store/message-retention.ts';
import { detectDeployment } from '../ops/deployment.ts';
import { Git } from '../ops/git.ts';
import { deploymentFacts, wireAiExtension, type AiWiringOverrides } from './ai-wiring.ts';
import { rotateSessionSecret, type StoredConsoleAuth } from './console-auth-file.ts';
import type { CorpusWiring } from './corpus-wiring.ts';
import { wireUpdates, type UpdateWiringOverrides } from './update-wiring.ts';
import { consoleAgentMemory } from './agent-memory-wiring.ts';

/** The corpus as the console uses it; `community` is absent in tests that build a bare runtime. */
export type ConsoleCorpus = Pick<CorpusWiring, 'runtime' | 'counters'> & Partial<Pick<CorpusWiring, 'community'>>;

export interface ConsoleWiringOptions {
  config: ConfigStore;
  /** The configuration reactions, already following `config` (a save reports their run). */
  reactions: ChangeReactions;
  store: LocalStore;
  /** The running corpus: its runtime, counters and (when built) its community side. */
  corpus: ConsoleCorpus;
  logger: Logger;
  clock: Clock;
  version: string;
  health: HealthSource;
  auth: StoredConsoleAuth;
  /** The OneBot accounts connected to this process. */
  connectedBots?: ConsoleDeps['connectedBots'];
  /** The forward-WebSocket targets this process dials. */
  forwardTargets?: ConsoleDeps['forwardTargets'];
  /** The media cache's figures; absent (no chat side): none. */
  media?: () => MediaOverview | null;
  /** Learning from history; absent (no chat side): seeds end as `no_account`. */
  historySeeds?: ConsoleDeps['historySeeds'];
  /** The group's own voice (agent-catchphrases-wiring.ts); absent: the store's, mining only when asked. */
  agentCatchphrases?: ConsoleDeps['agentCatchphrases'];
  /** The agent memory; absent (no chat side): one over the store, without a model. */
  agentMemory?: ConsoleDeps['agentMemory'];
  /** The language-model chat path; absent (no chat side): its routes answer 503. */
  agentChat?: ConsoleDeps['agentChat'];
  /** The repeater's keyword extraction; absent (no chat side): one of the console's own, loaded on first use. */
  keywords?: KeywordExtractor;
  /** Drops the bot's caches for a context changed by moderation (find, snapshot, reply bundles). */
  corpusChanged?: (keywords: string) => void;
  /** Told when an unban or its undo changed the blacklists (the repeater's lists follow). */
  listsChanged?: CorpusModeration['listsChanged'];
  /** Told each saved bot config (the chat side's copy and the other processes follow it). */
  onBotConfigSaved?: (config: BotConfig) => void;
  /** Told each saved group or user config (the chat side applies it and tells other processes). */
  onGroupConfigSaved?: (config: GroupConfig) => void;
  onUserConfigSaved?: (config: UserConfig) => void;
  /**
   * Every group and user control change, in chat, here or in another process (the chat side's
   * copy); absent: only this console's own saves are told to its live stream.
   */
  controlChanges?: ConsoleDeps['controlChanges'];
  /** The chat side's request inbox; absent: the stored inbox with no account connected. */
  requests?: RequestsPort;
  /** Groups and friends of the connected accounts; absent: no account is connected. */
  chatLists?: ChatListsPort;
  /** The accounts of this process; absent (no chat side): none. */
  instances?: InstancesPort;
  /** Members proposed as bots; absent (no chat side): none. */
  suspectedBots?: () => SuspectedBot[];
  /** The built web console; default web/dist of this checkout. */
  webRoot?: string | null;
  /** Plugins that run in this process (GET /api/plugins `enabled`); default core and console. */
  runningPlugins?: readonly PluginName[];
  fetch?: typeof fetch;
  /** The process environment (the AI extension's programs run with it); default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Folders and timings of the AI extension (tests). */
  ai?: AiWiringOverrides;
  /** Release root, versions and timings of the update domain (tests). */
  update?: UpdateWiringOverrides;
  /** Asks the supervisor (`chorus serve`) to restart the service process; absent: nothing supervises it. */
  requestRestart?: (container: boolean) => boolean;
  /** Stops and starts the service again (a SQLite restore swaps the file in between). */
  restart?: () => void;
  /** The ring the logger also writes to (the console's log pages). */
  logs?: ConsoleDeps['logs'];
  /** The repeater's decisions and activity (the dashboards and the Group page). */
  watch?: ConsoleDeps['watch'];
  /** The Prometheus metrics of the process. */
  metrics?: ConsoleDeps['metrics'];
  /** Daily statistics with what is not written yet; default: what the database holds. */
  dailyStats?: ConsoleDeps['dailyStats'];
  /** Unix ms when the service started; default when the console was wired. */
  startedAtMs?: number;
}

export interface ConsoleWiring {
  /** Closed by its owner. */
  readonly server: ConsoleApp;
}

/** Running jobs (an AI install) get this long to stop when the console closes. */
const JOBS_STOP_DEADLINE_MS = 3000;

/** web/dist beside src/ (from source) or dist/ (built): both are two levels below the checkout. */
const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** Always part of `chorus serve`. */
const ALWAYS_RUNNING: readonly PluginName[] = ['core', 'console'];

const NO_DEPLOYMENT = { deployment_id: null, community_stats_enabled: false, heartbeat_endpoint: '' };

export function wireConsole(options: ConsoleWiringOptions): ConsoleWiring {
  const { config, store, corpus, logger } = options;

  const botConfigs = new BotConfigStore(store.engine);
  const chatControls = new ChatControlsStore(store.engine);
  // Without the chat side's copy, the console's own saves are all its live stream can tell.
  const ownSaves = new Set<(change: ChatControlChange) => void>();
  const toldSaved = (change: ChatControlChange) => {
    if (!options.controlChanges) for (const listener of ownSaves) listener(change);
  };
  const running = new Set<PluginName>([...ALWAYS_RUNNING, ...(options.runningPlugins ?? [])]);
  const jobs = new JobRegistry({
    now: () => options.clock.nowMs(),
    onUnexpected: (job, error) =>
      logger.error({ job_id: job.id, kind: job.kind, err: { message: String(error) } }, 'job failed unexpectedly'),
  });
  const aiExtension = wireAiExtension({
    config,
    jobs,
    log: logger,
    clock: options.clock,
    env: options.env ?? process.env,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.ai ? { overrides: options.ai } : {}),
  });
  const updates = wireUpdates({
    config,
    jobs,
    log: logger,
    clock: options.clock,
    env: options.env ?? process.env,
    version: options.version,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.requestRestart ? { requestRestart: options.requestRestart } : {}),
    ...(options.update ? { overrides: options.update } : {}),
  });
  const snapshot = config.current();
  const deployment = deploymentFacts(options.env ?? process.env, new Git(options.env ?? process.env), options.ai);
  const backups = new BackupService({
    folder: join(snapshot.dataDir, 'backups'),
    dataDir: snapshot.dataDir,
    engine: store.engine.kind,
    ...(store.engine.backupTo ? { sqliteBackup: store.engine.backupTo.bind(store.engine) } : {}),
    corpus: store.corpus,
    jobs,
    now: () => options.clock.nowMs(),
    version: options.version,
    restart:
      options.restart ??
      (() => logger.warn({}, 'a restore asked for a restart, but this process cannot restart itself')),
    ...(snapshot.database.engine === 'postgres'
      ? { postgres: postgresBackups(snapshot.database.url, store, options.env ?? process.env) }
      : {}),
  });
  // A context changed from the console (moderation, an import): the bot drops its caches for it.
  const invalidate = (keywords: string) => {
    store.corpus.invalidateSnapshots(keywords);
    corpus.runtime.composite.invalidateFindCache(keywords);
    options.corpusChanged?.(keywords);
  };
  let auth = options.auth;
  const server = createConsoleServer({
    baseUrl: config.current().server.baseUrl,
    trustProxy: config.current().server.trustProxy,
    version: options.version,
    logger,
    clock: options.clock,
    health: options.health,
    credentials: credentialsFrom(config, () => auth),
    revokeSessions: async () => {
      auth = await rotateSessionSecret(auth);
      logger.warn({}, 'console sessions revoked: every session cookie made before has ended');
    },
    settings: config,
    reactions: options.reactions,
    corpus: {
      status: () => corpusStatus(corpus),
      localHot: (query) => aggregateLocalHotKeywords(store.corpus, query),
      communityApiBase: () => corpus.runtime.activation().community.apiBases[0] ?? '',
    },
    botConfigs: {
      get: (account) => botConfigs.get(account),
      list: () => botConfigs.list(),
      put: async (account, patch, nowSec) => {
        const saved = await botConfigs.put(account, patch, nowSec);
        options.onBotConfigSaved?.(saved);
        return saved;
      },
    },
    instances: options.instances ?? {
      list: async () => [],
      disconnect: () => 0,
      groupActivity: () => [],
    },
    suspectedBots: options.suspectedBots ?? (() => []),
    chatLists: options.chatLists ?? new ChatLists(NO_CHAT_ACTIONS.call, () => options.clock.nowMs()),
    requests:
      options.requests ??
      requestsPort(
        new RequestDesk({
          store: new RequestStore(store.engine),
          chat: NO_CHAT_ACTIONS,
          settings: { get: defaultBotConfig },
          log: logger,
          nowSec: () => Math.floor(options.clock.nowMs() / 1000),
        }),
      ),
    chatControls: {
      getGroup: async (groupId) => (await chatControls.getGroup(groupId)) ?? defaultGroupConfig(groupId),
      listGroups: (limit) => chatControls.listGroups(limit),
      putGroup: async (groupId, patch, nowSec) => {
        const saved = await chatControls.putGroup(groupId, patch, nowSec);
        options.onGroupConfigSaved?.(saved);
        toldSaved({ kind: 'group', config: saved });
        return saved;
      },
      getUser: async (userId) => (await chatControls.getUser(userId)) ?? defaultUserConfig(userId),
      listUsers: (limit) => chatControls.listUsers(limit),
      putUser: async (userId, patch, nowSec) => {
        const saved = await chatControls.putUser(userId, patch, nowSec);
        options.onUserConfigSaved?.(saved);
        toldSaved({ kind: 'user', config: saved });
        return saved;
      },
    },
    controlChanges:
      options.controlChanges ??
      ((listener) => {
        ownSaves.add(listener);
        return () => ownSaves.delete(listener);
      }),
    aiExtension,
    backups,
    updates,
    webRelease: () => updates.webDist(),
    database: {
      overview: async () => ({
        ...(await databaseOverview(
          store.engine,
          snapshot.database.engine === 'sqlite' ? snapshot.database.file : null,
        )),
        media: options.media?.() ?? null,
      }),
      rows: (table, offset, limit) => tableRows(store.engine, table, offset, limit),
    },
    retention: new RetentionService(new MessageRetention(store.engine), jobs, () => options.clock.nowMs()),
    corpusFiles: new CorpusJobs({
      folder: join(snapshot.dataDir, 'corpus-files'),
      kind: BACKUP_JOB,
      jobs,
      corpus: store.corpus,
      imported: (keywords) => {
        for (const each of keywords) invalidate(each);
      },
      version: options.version,
      now: () => options.clock.nowMs(),
    }),
    pluginEnabled: (name) => running.has(name),
    webRoot: options.webRoot === undefined ? DEFAULT_WEB_ROOT : options.webRoot,
    ...(options.connectedBots ? { connectedBots: options.connectedBots } : {}),
    ...(options.forwardTargets ? { forwardTargets: options.forwardTargets } : {}),
    agentChat: options.agentChat ?? agentChatPort(config, new AgentChatLedgerStore(store.engine), () => 0),
    historySeeds:
      options.historySeeds ?? noHistorySeeds({ activity: store.activity, clock: options.clock, log: logger }),
    agentMemory: options.agentMemory ?? consoleAgentMemory(store, options.clock, logger),
    agentTasks: agentTasksPort(store, options.clock, store.activity),
    moderation: corpusModeration(store, invalidate, options.keywords, options.listsChanged, corpus.community?.banned),
    activity: store.activity,
    agentCatchphrases:
      options.agentCatchphrases ??
      standaloneCatchphrases({ store, config: options.config, clock: options.clock, log: logger }),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.logs ? { logs: options.logs } : {}),
    ...(options.watch ? { watch: options.watch } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    dailyStats: options.dailyStats ?? new DailyStatsStore(store.engine),
    ...restartFrom(options),
    system: {
      engine: store.engine.kind,
      dataDir: snapshot.dataDir,
      startedAtMs: options.startedAtMs ?? options.clock.nowMs(),
      deployment: () => detectDeployment(config.current().deployment.deployment, deployment),
    },
  });
  // The console owns the jobs it started: closing it stops them.
  server.addHook('onClose', async () => {
    await jobs.stop(JOBS_STOP_DEADLINE_MS);
  });

  return { server };
}

/** pg_dump backups: the client tools looked for once, the schema asked of the database. */
function postgresBackups(url: string, store: LocalStore, env: Readonly<Record<string, string | undefined>>) {
  let tools: Promise<PgTools | null> | undefined;
  return {
    url,
    env,
    tools: () => (tools ??= findPgTools(env)),
    schema: () => currentSchema(store.engine),
  };
}

function corpusModeration(
  store: LocalStore,
  changed: (keywords: string) => void,
  shared: KeywordExtractor | undefined,
  listsChanged: CorpusModeration['listsChanged'],
  banned?: (contextKeywords: string, answerKeywords: string) => void,
): CorpusModeration {
  const browser = new CorpusBrowser(store.engine);
  const moderation = new ModerationStore(store.engine);
  let keywords = shared;
  return {
    // A typed sentence becomes keywords exactly as the bot turns a message into keywords.
    keywordsOf: (text) => describeText(text, text, (keywords ??= new KeywordExtractor())).keywords,
    search: (query, sentenceKeywords) => browser.search(query, sentenceKeywords),
    browse: (query) => browser.browse({ ...query, everywhereGroup: GLOBAL_BAN_GROUP }),
    contexts: (ids) => browser.views(ids, DETAIL_VIEW),
    answerGroup: (answerId) => browser.answerGroup(answerId),
    ban: async (...args) => {
      const result = await moderation.ban(...args);
      // A console ban travels like a chat ban (docs/hub.md#moderation).
      banned?.(result.keywords, result.entry.answerKeywords);
      return result;
    },
    deleteAnswer: (...args) => moderation.deleteAnswer(...args),
    deleteContext: (...args) => moderation.deleteContext(...args),
    undo: (...args) => moderation.undo(...args),
    log: (offset, limit) => moderation.list(offset, limit),
    unban: (...args) => moderation.unban(...args),
    changed,
    ...(listsChanged ? { listsChanged } : {}),
  };
}

/**
 * The status snapshot with the community side's deployment and usage. Usage is asked for only when
 * the community is on and has a credential (docs/rules.md#console-cache), from its 120 s cache.
 */
async function corpusStatus(corpus: ConsoleCorpus): Promise<CorpusStatus> {
  const status = corpus.community?.status;
  const community = corpus.runtime.activation().community;
  const wantUsage = community.on && (community.enrolledValid || community.manualConfigured) && community.token !== '';
  const usage = status && wantUsage ? await status.usage() : null;
  return corpus.runtime.status(status?.deployment() ?? NO_DEPLOYMENT, usage, corpus.counters());
}

/**
 * The same object while the snapshot and the stored secret are the same, so the console hashes
 * tokens only on change.
 */
function credentialsFrom(config: ConfigStore, current: () => StoredConsoleAuth): () => ConsoleCredentials {
  let memo: { snapshot: ConfigSnapshot; stored: StoredConsoleAuth; credentials: ConsoleCredentials } | null = null;
  return () => {
    const snapshot = config.current();
    const stored = current();
    if (memo?.snapshot === snapshot && memo.stored === stored) return memo.credentials;
    const readToken = snapshot.console.token || stored.generatedToken;
    const credentials: ConsoleCredentials = {
      readToken,
      writeToken: snapshot.console.writeToken || readToken,
      sessionSecret: stored.sessionSecret,
    };
    memo = { snapshot, stored, credentials };
    return credentials;
  };
}

/**
 * The console's restart: the supervisor's when there is one (a fresh process reads .env and the
 * environment again), else the process's own stop and start (src/main.ts).
 */
function restartFrom(options: ConsoleWiringOptions): Pick<ConsoleDeps, 'restartService'> {
  const { requestRestart, restart } = options;
  if (requestRestart) return { restartService: () => (requestRestart(false) ? 'supervisor' : null) };
  if (restart) return { restartService: () => (restart(), 'process') };
  return {};
}
