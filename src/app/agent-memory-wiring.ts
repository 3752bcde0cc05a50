/**
 * The member memory of the agent platform (docs/agent-memory.md) built from the store: the
 * memory the chat path reads and feeds, the 「记住我」/「忘记我」 commands for the repeater, the
 * console's port, and the background worker (a lifecycle part; it does nothing without a model).
 */
import type { Clock } from '../common/clock.ts';
import type { LifecyclePart } from '../common/lifecycle.ts';
import type { Log } from '../common/log.ts';
import type { ActivityRecorder } from '../domain/activity.ts';
import type { LanguageModel } from '../agent/model.ts';
import { memoryAdmin, type AgentMemoryPort } from '../agent/memory/memory-admin.ts';
import { memoryCommands } from '../agent/memory/memory-commands.ts';
import { AgentMemory } from '../agent/memory/member-memory.ts';
import { MemoryWorker, type MemoryWorkerOptions } from '../agent/memory/memory-worker.ts';
import type { MemberCommandHandler } from '../repeater/member-command.ts';
import { AgentMemoryFacts } from '../store/agent-memory-facts.ts';
import { AgentObservationQueue } from '../store/agent-memory-queue.ts';
import type { LocalStore } from '../store/open-store.ts';
import type { StoreEngine } from '../store/schema.ts';

export interface AgentMemoryWiringOptions {
  engine: StoreEngine;
  activity: ActivityRecorder;
  /** The background model as configured now; undefined: observations wait, no facts are drawn from them. */
  model: () => LanguageModel | undefined;
  /** This process's name in claims (the change feed's origin). */
  owner: string;
  nowMs: () => number;
  log: Log;
  /** Worker timings (tests). */
  worker?: Partial<Pick<MemoryWorkerOptions, 'intervalMs' | 'batch' | 'leaseMs' | 'maxAttempts' | 'retryDelayMs'>>;
}

export interface AgentMemoryWiring {
  readonly memory: AgentMemory;
  readonly commands: MemberCommandHandler;
  readonly console: AgentMemoryPort;
  readonly worker: MemoryWorker;
  /** The worker, and observations still being written, as one lifecycle part. */
  readonly part: LifecyclePart;
}

export function wireAgentMemory(options: AgentMemoryWiringOptions): AgentMemoryWiring {
  const memory = new AgentMemory({
    facts: new AgentMemoryFacts(options.engine),
    queue: new AgentObservationQueue(options.engine),
    nowMs: options.nowMs,
    log: options.log,
  });
  const worker = new MemoryWorker({
    memory,
    model: options.model,
    owner: options.owner,
    log: options.log,
    ...options.worker,
  });
  return {
    memory,
    commands: memoryCommands(memory, options.activity),
    console: memoryAdmin(memory, () => worker.enabled),
    worker,
    part: {
      name: 'agent memory',
      start: () => worker.start(),
      stop: async (deadlineMs: number) => {
        await worker.stop(deadlineMs / 2);
        await memory.settled(deadlineMs / 2);
      },
    },
  };
}

/** The console's port over the store alone (a console without a chat side, the console tests). */
export function consoleAgentMemory(store: LocalStore, clock: Clock, log: Log): AgentMemoryPort {
  return wireAgentMemory({
    engine: store.engine,
    activity: store.activity,
    model: () => undefined,
    owner: 'console',
    nowMs: () => clock.nowMs(),
    log,
  }).console;
}
