/**
 * What makes several `chorus serve` processes on one database act as one fleet
 * (docs/rules.md#fleet-feed, #fleet-claims): the change feed, woken by PostgreSQL's NOTIFY where
 * there is one, and what each process does with the others' changes.
 */
import type { DatabaseTarget } from '../config/index.ts';
import type { BanManager } from '../repeater/index.ts';
import type { Clock } from '../shared/clock.ts';
import type { Log } from '../shared/log.ts';
import { ChangeFeed, type ChangeTopic } from '../store/change-feed.ts';
import type { TaskSet } from '../shared/task-set.ts';
import { ChangeListener } from '../store/change-listener.ts';
import type { StoreEngine } from '../store/schema.ts';
import type { BotSettings } from './bot-settings.ts';
import type { ChatControlsCache } from './chat-controls.ts';

/** The change feed of `chorus serve`; on PostgreSQL it also listens on the schema's channel. */
export function newChangeFeed(engine: StoreEngine, database: DatabaseTarget, log: Log, clock: Clock): ChangeFeed {
  const monotonicMs = () => clock.monotonicMs();
  return new ChangeFeed(engine, {
    log,
    monotonicMs,
    nowMs: () => clock.nowMs(),
    ...(database.engine === 'postgres'
      ? { listen: (wake: () => void) => new ChangeListener({ url: database.url, wake, log, monotonicMs }) }
      : {}),
  });
}

export interface FleetParts {
  /** Drops every cache that may hold the context of `keywords`. */
  dropCorpusCaches: (keywords: string) => void;
  botSettings: Pick<BotSettings, 'reload'>;
  controls: Pick<ChatControlsCache, 'reloadGroup' | 'reloadUser'>;
  bans: Pick<BanManager, 'reload'>;
}

/** Applies the other processes' changes here. */
export function followChanges(changes: ChangeFeed, tasks: TaskSet, parts: FleetParts): void {
  changes.subscribe('corpus', parts.dropCorpusCaches);
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
