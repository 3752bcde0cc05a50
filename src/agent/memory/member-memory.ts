/**
 * The member memory (docs/agent-memory.md): facts about members who said 「记住我」, for the
 * chat path's prompts, and a bounded queue of conversations to draw facts from later. Nothing is
 * queued or kept about a member without consent: `observe` checks consent again in the store,
 * whatever the caller passed. Reads go to the store every time, so every process of a fleet on
 * one database answers the same.
 */
import { errorMessage } from '../../common/errors.ts';
import type { Log } from '../../common/log.ts';
import { TaskSet } from '../../common/task-set.ts';
import type { AgentMemoryFacts } from '../../store/agent-memory-facts.ts';
import type { AgentObservationQueue } from '../../store/agent-memory-queue.ts';
import type { AgentScope, ConversationExcerpt, MemberMemory } from '../parts.ts';
import { storedExcerpt } from './excerpt.ts';

export type FactsStore = Pick<
  AgentMemoryFacts,
  'consent' | 'consentsOf' | 'grant' | 'forget' | 'list' | 'forPrompt' | 'get' | 'add' | 'correct' | 'delete'
>;
export type QueueStore = Pick<
  AgentObservationQueue,
  'add' | 'pendingCount' | 'list' | 'claim' | 'finish' | 'fail' | 'prune'
>;

export const MEMORY_LIMITS = {
  /** Pending observations kept at most; past it new ones are dropped (counted). */
  maxQueue: 500,
  /** Observations being written at once; past it new ones are dropped (counted). */
  maxInFlight: 32,
  /** Facts given to a prompt per member. */
  promptFacts: 12,
} as const;

/** What the memory did since start (the console's overview shows them). */
export interface MemoryCounters {
  queued: number;
  /** Excerpts without a consented member: nothing stored. */
  dropped_no_consent: number;
  /** The queue was full or too many writes were under way. */
  dropped_full: number;
  /** Writing the observation failed. */
  dropped_error: number;
  facts_stored: number;
  observations_done: number;
  observations_failed: number;
}

export interface MemberMemoryOptions {
  facts: FactsStore;
  queue: QueueStore;
  /** Unix milliseconds. */
  nowMs: () => number;
  log: Log;
  maxQueue?: number;
}

export class AgentMemory implements MemberMemory {
  readonly counters: MemoryCounters = {
    queued: 0,
    dropped_no_consent: 0,
    dropped_full: 0,
    dropped_error: 0,
    facts_stored: 0,
    observations_done: 0,
    observations_failed: 0,
  };
  readonly facts: FactsStore;
  readonly queue: QueueStore;
  readonly #options: MemberMemoryOptions;
  readonly #writes: TaskSet;

  constructor(options: MemberMemoryOptions) {
    this.#options = options;
    this.facts = options.facts;
    this.queue = options.queue;
    this.#writes = new TaskSet((label, error) => {
      this.counters.dropped_error++;
      options.log.warn({ task: label, error: errorMessage(error) }, 'agent memory: keeping an observation failed');
    });
  }

  nowMs(): number {
    return this.#options.nowMs();
  }

  nowSec(): number {
    return Math.floor(this.#options.nowMs() / 1000);
  }

  async factsFor(scope: AgentScope, userId: number): Promise<readonly string[]> {
    const facts = await this.facts.forPrompt(scope.selfId, scope.groupId, userId, MEMORY_LIMITS.promptFacts);
    return facts.map((fact) => fact.content);
  }

  async hasConsent(selfId: number, userId: number): Promise<boolean> {
    return (await this.facts.consent(selfId, userId))?.granted === true;
  }

  observe(excerpt: ConversationExcerpt): void {
    if (excerpt.consentedUserIds.length === 0) {
      this.counters.dropped_no_consent++;
      return;
    }
    if (this.#writes.size >= MEMORY_LIMITS.maxInFlight) {
      this.counters.dropped_full++;
      return;
    }
    this.#writes.run('agent memory observe', () => this.#keep(excerpt));
  }

  /** Waits for observations being written (stop, tests). */
  async settled(deadlineMs = 5000): Promise<void> {
    await this.#writes.drain(deadlineMs);
  }

  async #keep(excerpt: ConversationExcerpt): Promise<void> {
    const consented: number[] = [];
    for (const userId of new Set(excerpt.consentedUserIds)) {
      if (await this.hasConsent(excerpt.selfId, userId)) consented.push(userId);
    }
    const stored = consented.length > 0 ? storedExcerpt(excerpt, consented) : null;
    if (stored === null) {
      this.counters.dropped_no_consent++;
      return;
    }
    if ((await this.queue.pendingCount()) >= (this.#options.maxQueue ?? MEMORY_LIMITS.maxQueue)) {
      this.counters.dropped_full++;
      return;
    }
    await this.queue.add({
      selfId: excerpt.selfId,
      groupId: excerpt.groupId,
      excerpt: stored,
      userIds: consented,
      now: this.nowSec(),
    });
    this.counters.queued++;
  }
}
