/**
 * What makes several `chorus serve` processes on one database act as one fleet
 * (docs/rules.md#fleet-feed, #fleet-claims, #fleet-accounts): the change feed, woken by
 * PostgreSQL's NOTIFY where there is one, what each process does with the others' changes, and
 * the accounts connected to the other processes.
 */
import type { DatabaseTarget } from '../config/index.ts';
import type { ChatPlatforms } from './chat-platforms.ts';
import type { BanManager } from '../repeater/index.ts';
import type { Clock } from '../common/clock.ts';
import type { Log } from '../common/log.ts';
import { ChangeFeed, type ChangeTopic } from '../store/change-feed.ts';
import type { TaskSet } from '../common/task-set.ts';
import { ChangeListener } from '../store/change-listener.ts';
import { FileChangeWatch } from '../store/file-change-watch.ts';
import { MessageClaimStore } from '../store/message-claims.ts';
import { FleetClaims } from '../repeater/fleet-claims.ts';
import type { StoreEngine } from '../store/schema.ts';
import type { BotSettings } from './bot-settings.ts';
import type { ChatControlsCache } from './chat-controls.ts';

/** SQLite: a burst of writes wakes the feed at most this often (the poll rate of PostgreSQL's fallback). */
const SQLITE_WAKE_EVERY_MS = 1_000;

/**
 * The change feed of `chorus serve`: on PostgreSQL it also listens on the schema's channel; on
 * SQLite it polls when the database's files change, so an idle process reads nothing
 * (docs/rules.md#idle-quiet).
 */
export function newChangeFeed(engine: StoreEngine, database: DatabaseTarget, log: Log, clock: Clock): ChangeFeed {
  const monotonicMs = () => clock.monotonicMs();
  return new ChangeFeed(engine, {
    log,
    monotonicMs,
    nowMs: () => clock.nowMs(),
    listen:
      database.engine === 'postgres'
        ? (wake: () => void) => new ChangeListener({ url: database.url, wake, log, monotonicMs })
        : (wake: () => void) =>
            new FileChangeWatch({ file: database.file, wake, monotonicMs, minIntervalMs: SQLITE_WAKE_EVERY_MS, log }),
  });
}

export interface FleetParts {
  /** Drops every cache that may hold the context of `keywords`. */
  dropCorpusCaches: (keywords: string) => void;
  /** Drops the cached copies of a context another process learned into (as a learn here does). */
  forgetLearnedKey: (keywords: string) => void;
  log: Log;
  botSettings: Pick<BotSettings, 'reload'>;
  controls: Pick<ChatControlsCache, 'reloadGroup' | 'reloadUser'>;
  bans: Pick<BanManager, 'reload' | 'forget'>;
}

/** Applies the other processes' changes here. */
export function followChanges(changes: ChangeFeed, tasks: TaskSet, parts: FleetParts): void {
  changes.subscribe('corpus', parts.dropCorpusCaches);
  changes.subscribe('learned', (key) => {
    const keys = learnedKeys(key);
    if (keys === undefined) parts.log.warn({ topic: 'learned' }, 'a malformed change from another process was dropped');
    for (const keywords of keys ?? []) parts.forgetLearnedKey(keywords);
  });
  changes.subscribe('bot-config', (account) =>
    tasks.run('reload bot-config', () => parts.botSettings.reload(Number(account))),
  );
  changes.subscribe('group-config', (groupId) =>
    tasks.run('reload group-config', () => parts.controls.reloadGroup(Number(groupId))),
  );
  changes.subscribe('user-config', (userId) =>
    tasks.run('reload user-config', () => parts.controls.reloadUser(Number(userId))),
  );
  changes.subscribe('blacklist', (groupId) =>
    tasks.run(`reload blacklist of group ${groupId}`, () => parts.bans.reload(Number(groupId))),
  );
  // A reload merges (a union), so a lifted ban is told as such: the keywords leave those lists.
  changes.subscribe('unban', (key) => {
    const lifted = liftedKey(key);
    if (lifted === undefined) parts.log.warn({ topic: 'unban' }, 'a malformed change from another process was dropped');
    else parts.bans.forget(lifted.keywords, lifted.groups);
  });
}

/**
 * The console lifted a ban here (or undid an unban): this process's lists follow, and the others
 * are told, each forgetting the keywords (`unban`) or merging the restored lists (`blacklist`).
 */
export function listsChangedHere(bans: Pick<BanManager, 'follow'>, publish: Publish) {
  return (change: { keywords: string; lifted: readonly number[]; restored: readonly number[] }): void => {
    bans.follow(change);
    if (change.lifted.length > 0)
      publish('unban', JSON.stringify({ keywords: change.keywords, groups: change.lifted }));
    for (const groupId of change.restored) publish('blacklist', String(groupId));
  };
}

function liftedKey(key: string): { keywords: string; groups: number[] } | undefined {
  try {
    const parsed: unknown = JSON.parse(key);
    if (parsed === null || typeof parsed !== 'object') return undefined;
    const { keywords, groups } = parsed as { keywords?: unknown; groups?: unknown };
    if (typeof keywords !== 'string' || !Array.isArray(groups)) return undefined;
    if (!groups.every((group) => Number.isSafeInteger(group))) return undefined;
    return { keywords, groups: groups as number[] };
  } catch {
    return undefined;
  }
}

/** At most this many keys per `learned` change (one row, one poll, a bounded key column). */
const LEARNED_KEYS_PER_CHANGE = 64;

/**
 * A learn batch committed here: the others drop their cached copies of those contexts, so a key
 * learned by any process is answerable at once in every one (docs/rules.md#fleet-feed).
 */
export function publishLearned(publish: Publish, contextKeywords: readonly string[]): void {
  for (let start = 0; start < contextKeywords.length; start += LEARNED_KEYS_PER_CHANGE)
    publish('learned', JSON.stringify(contextKeywords.slice(start, start + LEARNED_KEYS_PER_CHANGE)));
}

/** The keys of a `learned` change, or undefined when it is not a list of strings. */
export function learnedKeys(key: string): string[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(key);
  } catch {
    return undefined;
  }
  return Array.isArray(parsed) && parsed.every((item) => typeof item === 'string') ? parsed : undefined;
}

/** Publishes a change to the other processes (tracked by the caller's task set). */
export type Publish = (topic: ChangeTopic, key: string) => void;

/** A ban made here: the others merge the group's blacklist and drop the context's cached copies. */
export function publishBan(publish: Publish, groupId: number, contextKeywords: string): void {
  publish('blacklist', String(groupId));
  publish('corpus', contextKeywords);
}

/** The feed's counters as `/health` reports them. */
export function changeFeedHealth(changes: ChangeFeed): {
  published: number;
  received: number;
  publish_failed: number;
  poll_failed: number;
} {
  const { published, received, publishFailed, pollFailed } = changes.counters;
  return { published, received, publish_failed: publishFailed, poll_failed: pollFailed };
}

/**
 * The bot accounts connected to the other processes of the fleet (docs/rules.md#fleet-accounts):
 * what one of them sends in a group reaches this process's accounts as a group message, and is
 * the bot's own message, as it is for two accounts of one process. Each process announces an
 * account when it connects; a process that starts says hello and the others announce theirs.
 * An account once announced stays known until this process stops.
 */
export class FleetAccounts {
  readonly #others = new Set<number>();
  #connected: () => readonly number[] = () => [];

  /** `publish` tracks what it sends (the service's fleet scope). */
  constructor(
    feed: Pick<ChangeFeed, 'subscribe'>,
    private readonly publish: Publish,
  ) {
    feed.subscribe('fleet-account', (key) => {
      const account = Number(key);
      if (Number.isSafeInteger(account) && account > 0) this.#others.add(account);
    });
    feed.subscribe('fleet-hello', () => {
      for (const account of this.#connected()) this.publish('fleet-account', String(account));
    });
  }

  /** Accounts connected to other processes (now or earlier). */
  others(): ReadonlySet<number> {
    return this.#others;
  }

  /** This process's accounts: announced as each connects, and again at another process's hello. */
  follow(chat: Pick<ChatPlatforms, 'bots' | 'on'>): void {
    this.#connected = () => chat.bots().map((bot) => bot.selfId);
    chat.on('bot_connected', (event) => this.publish('fleet-account', String(event.selfId)));
  }

  /** Once this process's feed has started (it must see the answers). */
  hello(): void {
    this.publish('fleet-hello', '');
  }
}

/** Whether this process claims messages: `auto` claims on PostgreSQL, where a fleet is usual. */
export function fleetClaimsWanted(setting: boolean | 'auto', engine: 'sqlite' | 'postgres'): boolean {
  return setting === 'auto' ? engine === 'postgres' : setting;
}

/** The claims of `chorus serve`, when the setting wants them on this engine (else undefined). */
export function fleetClaimsFor(
  setting: boolean | 'auto',
  engine: StoreEngine,
  origin: string,
  log: Log,
  clock: Clock,
): FleetClaims | undefined {
  if (!fleetClaimsWanted(setting, engine.kind)) return undefined;
  const store = new MessageClaimStore(engine, () => clock.nowMs());
  return new FleetClaims(store, { origin, log, monotonicMs: () => clock.monotonicMs() });
}
