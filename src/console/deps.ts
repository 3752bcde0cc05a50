/**
 * What the console needs from the rest of the service, as interfaces (docs/rules.md#style-ctor). The
 * composition root (src/app/console-wiring.ts) builds them from the running objects; tests and the
 * OpenAPI export build them from fakes or defaults.
 */
import type { Logger } from 'pino';
import type { ConfigChange, ConfigReactions, ConfigSnapshot } from '../config/index.ts';
import type { LocalHotItem, LocalHotOptions } from '../corpus/local-hot.ts';
import type { AiExtension } from '../ops/ai/index.ts';
import type { LogRing } from '../ops/logs/index.ts';
import type { AnswerView, ChatActivity, DecisionRing } from '../repeater/index.ts';
import type { TriedSentence } from '../repeater/try-sentence.ts';
import type { DecisionPageQuery, StoredDecision } from '../store/decision-log.ts';
import type { BackupService } from '../ops/backup/index.ts';
import type { RetentionService } from '../ops/retention/index.ts';
import type { UpdateService } from '../ops/update/index.ts';
import type { CorpusJobs } from '../ops/corpus-file/index.ts';
import type { AgentMemoryPort } from '../agent/memory/memory-admin.ts';
import type { ChorusTable, DatabaseOverview } from '../store/database-overview.ts';
import type { MediaCacheCounters, MediaSendCounters } from '../onebot/index.ts';

/** The media cache of learned pictures, and the sends it rescued (the database page). */
export type MediaOverview = MediaCacheCounters & MediaSendCounters;
import type { CorpusStatus } from '../corpus/status.ts';
import type { Clock } from '../common/clock.ts';
import type { ForwardTargetStatus } from '../onebot/index.ts';
import type { BotConfig, BotConfigPatch } from '../store/bot-config-store.ts';
import type {
  ChatControlChange,
  GroupConfig,
  GroupConfigPatch,
  UserConfig,
  UserConfigPatch,
} from '../domain/chat-controls.ts';
import type { BrowseQuery, ContextView, SearchPage, SearchQuery } from '../store/corpus-browse.ts';
import type { ModerationStore } from '../store/moderation-store.ts';
import type { ActivityLog } from '../store/activity-log.ts';
import type { CatchphrasesPort } from '../agent/catchphrases/port.ts';
import type { ConsoleCredentials } from './auth.ts';
import type { HealthSource } from './health.ts';
import type { PluginName } from './plugins.ts';

/** The configuration as the console reads and saves it (ConfigStore satisfies this). */
export interface SettingsStore {
  current(): ConfigSnapshot;
  /** Validates, writes the console settings file and reloads; see ConfigStore. */
  saveConsoleSettings(values: Readonly<Record<string, unknown>>): Promise<ConfigChange | null>;
}

/** The table of reactions to a configuration change (src/config/reactions.ts). */
export type ChangeReactions = Pick<ConfigReactions, 'handle' | 'unchanged'>;

export interface CorpusReadModel {
  /** The status snapshot (docs/rules.md#status); usage may need the hub (cached). */
  status(): CorpusStatus | Promise<CorpusStatus>;
  localHot(options: LocalHotOptions): Promise<LocalHotItem[]>;
  /** The community API base in use ('' when none is configured or enrolled). */
  communityApiBase(): string;
}

export interface BotConfigRepository {
  get(account: number): Promise<BotConfig | null>;
  list(): Promise<BotConfig[]>;
  put(account: number, patch: BotConfigPatch, nowSec: number): Promise<BotConfig>;
}

/** Per-group and per-user controls (routes/chat-controls.ts); a get of one never saved is the defaults. */
export interface ChatControlsRepository {
  getGroup(groupId: number): Promise<GroupConfig>;
  listGroups(limit: number): Promise<GroupConfig[]>;
  putGroup(groupId: number, patch: GroupConfigPatch, nowSec: number): Promise<GroupConfig>;
  getUser(userId: number): Promise<UserConfig>;
  listUsers(limit: number): Promise<UserConfig[]>;
  putUser(userId: number, patch: UserConfigPatch, nowSec: number): Promise<UserConfig>;
}

export type * from './chat-ports.ts';
import type {
  AgentChatPort,
  AgentTasksPort,
  ChatListsPort,
  HistorySeedsPort,
  InstancesPort,
  RequestsPort,
  SuspectedBot,
} from './chat-ports.ts';

/** The AI extension (src/ops/ai): config, probe, install jobs, logs, NCM proxy. */
export type AiExtensionPort = Pick<
  AiExtension,
  | 'timing'
  | 'config'
  | 'saveConfig'
  | 'test'
  | 'installStatus'
  | 'startInstall'
  | 'job'
  | 'activeJob'
  | 'logs'
  | 'logStream'
  | 'ncmStatus'
  | 'ncmSendSms'
  | 'ncmVerifySms'
  | 'ncmLogout'
>;

/** Checking and applying releases, rollback (src/ops/update). */
export type UpdatePort = Pick<
  UpdateService,
  | 'timing'
  | 'check'
  | 'botCheck'
  | 'startWebApply'
  | 'startBotApply'
  | 'history'
  | 'startGitApply'
  | 'configMigrationCheck'
  | 'configMigrationApply'
  | 'rollback'
  | 'job'
  | 'activeJob'
>;

/** Backups of the database (src/ops/backup). */
export type BackupPort = Pick<
  BackupService,
  'info' | 'runs' | 'active' | 'job' | 'file' | 'start' | 'delete' | 'preview' | 'restore'
>;
/** Corpus search and moderation (src/store/corpus-browse.ts, src/store/moderation-store.ts). */
export interface CorpusModeration {
  /** A typed sentence turned into keywords as the repeater turns a message into keywords. */
  keywordsOf(text: string): string;
  search(query: SearchQuery, sentenceKeywords?: string): Promise<SearchPage>;
  browse(query: Omit<BrowseQuery, 'everywhereGroup'>): Promise<SearchPage>;
  contexts(ids: readonly number[]): Promise<ContextView[]>;
  /** The group an answer was learned in (0: community), or null when there is no such answer. */
  answerGroup(answerId: number): Promise<number | null>;
  ban: ModerationStore['ban'];
  deleteAnswer: ModerationStore['deleteAnswer'];
  deleteContext: ModerationStore['deleteContext'];
  undo: ModerationStore['undo'];
  log: ModerationStore['list'];
  unban: ModerationStore['unban'];
  /** Called after every change of context `keywords`: the bot's caches for it are dropped. */
  changed(keywords: string): void;
  /**
   * Called after an unban took `keywords` off the blacklists of `lifted`, or an undone unban put
   * them back on `restored`: the chat side's lists in memory follow.
   */
  listsChanged?(change: { keywords: string; lifted: readonly number[]; restored: readonly number[] }): void;
}

/** The activity log (src/store/activity-log.ts): every change to what the bot says and where. */
export type ActivityPort = Pick<ActivityLog, 'record' | 'list' | 'get'>;

export interface ConnectedBotInfo {
  selfId: number;
  roles: readonly string[];
  /** `reverse` (accepted) or `forward` (dialled) for each connection, in the order of `roles`. */
  directions?: readonly ('reverse' | 'forward')[];
  connectedAt: number;
  lastEventAt: number | null;
  online: boolean | null;
  /** How the account is judged alive (src/onebot/liveness.ts); absent reads as 'none'. */
  judgedBy?: 'heartbeat' | 'ping' | 'none';
  lastHeartbeatAt?: number | null;
  lastPongAt?: number | null;
  remoteAddress?: string | null;
  framesIn?: number;
  framesOut?: number;
}

/** The forward-WebSocket dialer as the console sees it (src/onebot/forward-dialer.ts). */
export interface ForwardTargetsPort {
  targets(): readonly ForwardTargetStatus[];
  /** The address behind a console id; undefined when there is none. */
  hrefOf(id: string): string | undefined;
  idOf(href: string): string;
}

/** A day range of the daily statistics (src/store/daily-stats.ts answers it). */
export interface DailyStatsQuery {
  /** Inclusive, YYYY-MM-DD. */
  start: string;
  end: string;
  selfId?: number;
  groupId?: number;
  limit: number;
}

export interface DailyStatsRow {
  day: string;
  selfId: number;
  groupId: number;
  received: number;
  replies_group: number;
  replies_cross_group: number;
  replies_community: number;
  replies_repeat: number;
  replies_proactive: number;
  learn_queued: number;
  bans: number;
}

/** What `GET /system` and the overview say about where Chorus runs. */
export interface SystemSource {
  /** `sqlite` or `postgres`. */
  engine: string;
  /** The data folder (its disk is reported). */
  dataDir: string;
  /** Unix ms when the service started. */
  startedAtMs: number;
  /** `source`, `release` or `container`. */
  deployment(): Promise<string>;
}

/** What the chat side did, watched without slowing it (src/repeater/activity.ts, decision-ring.ts). */
export interface ChatWatch {
  decisions: Pick<DecisionRing, 'recent' | 'groups' | 'perGroup'>;
  activity: Pick<ChatActivity, 'minutes' | 'bots' | 'hours'>;
  /** The account's nickname (get_login_info, cached); null when it cannot be asked. */
  nickname?(selfId: number): Promise<string | null>;
  /** The known answers to a message's keywords, judged as the corpus stands now (the Why page). */
  answers?(lookup: { groupId: number; keywords: string; threshold: number | null }): Promise<AnswerView[]>;
  /** The decisions kept in the database (src/store/decision-log.ts); what is pending is written first. */
  log?: {
    page(query: DecisionPageQuery): Promise<StoredDecision[]>;
    groups(limit: number): Promise<{ groupId: number; selfId: number; kept: number; lastAt: number }[]>;
  };
  /** What the repeater would do with a message in a group, changing nothing (src/repeater/try-sentence.ts). */
  trySentence?(
    groupId: number,
    selfId: number,
    message: { rawMessage: string; plainText: string },
  ): Promise<TriedSentence>;
}

export interface ConsoleDeps {
  /** Path prefix, "" or like "/chorus" (normalised by config). */
  baseUrl: string;
  /** Package version, shown in the OpenAPI document. */
  version: string;
  logger: Logger;
  clock: Clock;
  health: HealthSource;
  /** Current tokens and session secret; the same object while nothing changed. */
  credentials: () => ConsoleCredentials;
  /** Replaces the session secret, ending every session cookie ("log out everywhere"). */
  revokeSessions: () => Promise<void>;
  /** CHORUS_TRUST_PROXY: '' trusts no proxy; else addresses, CIDRs or loopback/linklocal/uniquelocal. */
  trustProxy: string;
  settings: SettingsStore;
  reactions: ChangeReactions;
  corpus: CorpusReadModel;
  botConfigs: BotConfigRepository;
  chatControls: ChatControlsRepository;
  /**
   * Calls `listener` with each group or user control change, made here, in chat or in another
   * process (GET /chat-controls/stream); returns the unsubscribe. Absent: that stream answers 503.
   */
  controlChanges?: (listener: (change: ChatControlChange) => void) => () => void;
  requests: RequestsPort;
  chatLists: ChatListsPort;
  instances: InstancesPort;
  /** Members proposed as bots (src/repeater/bot-suspects.ts), not yet decided on in user-configs. */
  suspectedBots: () => SuspectedBot[];
  aiExtension: AiExtensionPort;
  backups: BackupPort;
  updates: UpdatePort;
  retention: Pick<RetentionService, 'preview' | 'apply'>;
  /** The portable corpus file as console jobs (src/ops/corpus-file/corpus-jobs.ts). */
  corpusFiles: Pick<CorpusJobs, 'startExport' | 'file' | 'startImport'>;
  database: {
    /** With the media cache's figures (src/onebot/media-cache.ts); media null: no chat side here. */
    overview(): Promise<DatabaseOverview & { media: MediaOverview | null }>;
    rows(table: ChorusTable, offset: number, limit: number): Promise<Record<string, unknown>[]>;
  };
  /** Whether a plugin runs in this process. */
  pluginEnabled: (name: PluginName) => boolean;
  /** Corpus search and moderation; absent: those routes answer 503. */
  moderation?: CorpusModeration;
  /** The activity log; absent: GET /activity answers 503 and changes are not recorded. */
  activity?: ActivityPort;
  /** The OneBot accounts connected to this process; absent: none. */
  connectedBots?: () => readonly ConnectedBotInfo[];
  /** The forward-WebSocket targets this process dials (routes/forward-targets.ts); absent: none. */
  forwardTargets?: ForwardTargetsPort;
  /** Learning from a group's history (src/app/history-seeds.ts); absent: those routes answer 503. */
  historySeeds?: HistorySeedsPort;
  /** The agent platform's member memory (routes/agent-memory.ts); absent: those routes answer 503. */
  agentMemory?: AgentMemoryPort;
  /** The agent platform's reminder tasks; absent: those routes answer 503. */
  agentTasks?: AgentTasksPort;
  /** The language-model chat path (src/app/agent-chat-wiring.ts); absent: no chat side here, the routes answer 503. */
  agentChat?: AgentChatPort;
  /** The built web console (web/dist); null or absent: page paths answer 503. */
  webRoot?: string | null;
  /**
   * The installed web-console release to serve instead of webRoot (its `current` link), or null:
   * the update domain names it only while it is newer than the bundled one (docs/rules.md#web-console-pick).
   */
  webRelease?: () => Promise<string | null>;
  /**
   * Restarts the service after the answer is sent: `supervisor` when `chorus serve` supervises
   * this process, `process` when it stops and starts itself, null when the request was not taken.
   * Absent: this process cannot be restarted from the console.
   */
  restartService?: () => 'supervisor' | 'process' | null;
  /** Where Chorus runs (GET /system); absent: that route answers 503. */
  system?: SystemSource;
  /** The repeater's decisions and activity; absent: the routes that need them answer 503. */
  watch?: ChatWatch;
  /** Daily counts per account and group (stored plus not yet written); absent: that route answers 503. */
  dailyStats?: { list(query: DailyStatsQuery): Promise<DailyStatsRow[]> };
  /** Prometheus text of the process (GET /metrics); absent: that route answers 503. */
  metrics?: { contentType: string; text(): Promise<string> };
  /** The service's recent log entries; absent: the log routes answer 503. */
  logs?: { ring: LogRing; heartbeatMs?: number };
  /** The group's own voice (src/app/agent-catchphrases-wiring.ts); absent: those routes answer 503. */
  agentCatchphrases?: CatchphrasesPort;
  /** Used for the community hub; default the global fetch. */
  fetch?: typeof fetch;
}
