/**
 * A bot deployment's corpus with the community wiring, on SQLite in a temporary folder, for the
 * community wiring and end-to-end tests: the store, a CorpusRuntime built with the wiring's late
 * binding, the learn and mirror workers, and a configuration that can be changed (emitting
 * `config/changed` like ConfigStore), followed by the community's configuration reactions.
 */
import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { communityFoundation, wireCommunity, type CommunityWiring } from '../../../src/app/community-wiring.ts';
import type { FetchLike } from '../../../src/community/http.ts';
import {
  ConfigReactions,
  configFromValues,
  type ConfigChange,
  type ConfigEvents,
  type ConfigKey,
  type ConfigSnapshot,
  type StepReport,
} from '../../../src/config/index.ts';
import { CorpusRuntime } from '../../../src/corpus/corpus-runtime.ts';
import { CorpusState } from '../../../src/corpus/corpus-state.ts';
import { systemClock, type Clock } from '../../../src/common/clock.ts';
import { silentLog, type Log } from '../../../src/common/log.ts';
import { openStore, type LocalStore } from '../../../src/store/open-store.ts';
import { createLearnWorker } from '../../../src/workers/learn-worker.ts';
import { createMirrorWorker, type MirrorWorkerCounters } from '../../../src/workers/mirror-worker.ts';
import type { QueueWorker } from '../../../src/workers/queue-worker.ts';
import { DEFAULT_REPLY } from '../../support/engines.ts';

export class TestConfig extends EventEmitter<ConfigEvents> {
  #snapshot: ConfigSnapshot;

  constructor(private values: Record<string, unknown>) {
    super();
    this.#snapshot = configFromValues(values);
  }

  current(): ConfigSnapshot {
    return this.#snapshot;
  }

  /** Merges values and announces the keys whose value changed; the change, or null. */
  set(more: Record<string, unknown>): ConfigChange | null {
    const previous = this.#snapshot;
    this.values = { ...this.values, ...more };
    const current = configFromValues(this.values);
    const changedKeys = Object.keys(more).filter(
      (key) => String(previous.raw(key as ConfigKey)) !== String(current.raw(key as ConfigKey)),
    ) as ConfigKey[];
    this.#snapshot = current;
    if (changedKeys.length === 0) return null;
    const change = { previous, current, changedKeys };
    this.emit('config/changed', change);
    return change;
  }
}

export interface Deployment {
  dir: string;
  config: TestConfig;
  store: LocalStore;
  runtime: CorpusRuntime;
  community: CommunityWiring;
  learnWorker: QueueWorker<unknown>;
  mirrorWorker: QueueWorker<unknown>;
  /** The mirror worker's counters (sent, withheld per reason, …). */
  mirrorCounters: MirrorWorkerCounters;
  /** Changes the configuration; the report of the reactions it set off (none: nothing changed). */
  set(values: Record<string, unknown>): Promise<StepReport[]>;
  /** Stops workers and closes the store (also done after the test). */
  stop(): Promise<void>;
}

export interface DeploymentOptions {
  /** Reuse a data folder (a restart). */
  dir?: string;
  clock?: Clock;
  log?: Log;
  fetch?: FetchLike;
  /** Start the wiring (jobs, workers); default true. */
  start?: boolean;
}

/** One deployment as `chorus serve` would wire it (the lead's integration, in miniature). */
export async function deployment(
  t: TestContext,
  values: Record<string, unknown>,
  options: DeploymentOptions = {},
): Promise<Deployment> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'chorus-deploy-')));
  const clock = options.clock ?? systemClock;
  const log = options.log ?? silentLog;
  const config = new TestConfig({ CHORUS_DATA_DIR: dir, ...values });
  const store = await openStore({ databaseUrl: '', dataDir: dir, poolMax: 1, reply: DEFAULT_REPLY });
  const mirrorState: { start?: () => void } = {};
  // The build order of src/app/corpus-wiring.ts: the shared state, the community side, the runtime.
  const foundation = communityFoundation(config, clock, log);
  const shared = new CorpusState({
    pressure: store.engine,
    config: () => config.current(),
    activation: foundation.view.activationSource,
    onFirstMirrorItem: () => mirrorState.start?.(),
    clock,
    log,
  });
  const community = wireCommunity({
    store,
    config,
    foundation,
    shared,
    clock,
    log,
    version: 'test',
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const runtime = new CorpusRuntime({
    local: store.corpus,
    pressure: store.engine,
    config: () => config.current(),
    shared,
    sources: community.sources,
    prefetch: community.prefetch,
    banned: community.banned,
    clock,
    log,
  });
  const now = () => clock.monotonicMs();
  const learnWorker = createLearnWorker({
    queue: runtime.learning,
    learner: runtime.learner,
    pressure: store.engine,
    now,
    log,
  });
  const mirror = createMirrorWorker({
    queue: runtime.mirror,
    target: community.mirrorTarget,
    park: community.parkMirrorItem,
    budget: runtime.budget,
    log,
  });
  mirrorState.start = () => mirror.worker.start();
  learnWorker.start();
  if (options.start !== false) await community.scope.start();
  const reactions = new ConfigReactions(community.reactions, log);
  const unfollow = reactions.follow(config);
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      unfollow();
      await community.scope.stop(2000);
      await learnWorker.stop(2000);
      await mirror.worker.stop(2000);
      await store.close();
    })());
  t.after(async () => {
    await stop();
    if (!options.dir) await rm(dir, { recursive: true, force: true });
  });
  return {
    dir,
    config,
    store,
    runtime,
    community,
    learnWorker: learnWorker as QueueWorker<unknown>,
    mirrorWorker: mirror.worker as QueueWorker<unknown>,
    mirrorCounters: mirror.counters,
    set: async (more) => {
      const change = config.set(more);
      return change === null ? [] : reactions.handle(change);
    },
    stop,
  };
}

/**
 * Queue one learn event: `answer` followed `keywords` in `groupId`. `rawAnswer` is the message as
 * sent (CQ codes and all); by default the answer keywords themselves.
 */
export function learn(
  d: Deployment,
  groupId: number,
  keywords: string,
  answer: string,
  time: number,
  rawAnswer = answer,
): void {
  d.runtime.learning.enqueue({
    predecessor: { rawMessage: keywords, keywords },
    current: { groupId, rawMessage: rawAnswer, keywords: answer, time, isPlainText: rawAnswer === answer },
  });
}
