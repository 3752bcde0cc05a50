/**
 * The background worker of the member memory (docs/agent-memory.md): every interval it claims a
 * few pending observations (one process of a fleet per observation, store/agent-memory-queue.ts),
 * asks the background model for facts about the consented members in each, and stores them
 * (only while consent still stands). A failed attempt is retried after a pause, a few times, then
 * the observation is marked failed. Without a model it does nothing, and says so once.
 */
import { errorMessage } from '../../common/errors.ts';
import type { Log } from '../../common/log.ts';
import type { LanguageModel } from '../model.ts';
import type { Observation } from '../../store/agent-memory-tables.ts';
import { extractionPrompt, parseExtraction } from './fact-extraction.ts';
import type { AgentMemory } from './member-memory.ts';

export const WORKER_DEFAULTS = {
  intervalMs: 30_000,
  batch: 4,
  /** How long a claim holds: longer than a model call's own timeout. */
  leaseMs: 180_000,
  maxAttempts: 3,
  retryDelayMs: 60_000,
  /** Finished observations are deleted after this many seconds. */
  keepFinishedSec: 7 * 86_400,
} as const;

export interface MemoryWorkerOptions {
  memory: AgentMemory;
  /** The background model as configured now (it follows the settings); undefined: nothing is drawn. */
  model: () => LanguageModel | undefined;
  /** This process's name in claims (the change feed's origin). */
  owner: string;
  log: Log;
  intervalMs?: number;
  batch?: number;
  leaseMs?: number;
  maxAttempts?: number;
  retryDelayMs?: number;
}

export class MemoryWorker {
  readonly name = 'agent memory worker';
  readonly #options: MemoryWorkerOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #abort = new AbortController();
  #started = false;

  constructor(options: MemoryWorkerOptions) {
    this.#options = options;
  }

  get enabled(): boolean {
    return this.#options.model() !== undefined;
  }

  /** Scheduled even without a model: one configured later (the console's settings) is used at the next round. */
  start(): void {
    if (this.#options.model() === undefined) {
      this.#options.log.info(
        {},
        'agent memory: no background model configured; observations are not turned into facts until one is',
      );
    }
    if (this.#started) return;
    this.#started = true;
    this.#abort = new AbortController();
    this.#schedule();
  }

  /** Stops the schedule; a run under way is aborted and waited for at most `deadlineMs`. */
  async stop(deadlineMs: number): Promise<void> {
    this.#started = false;
    clearTimeout(this.#timer);
    this.#abort.abort();
    const running = this.#running;
    if (!running) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([running, new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, deadlineMs))))]);
    clearTimeout(timer);
  }

  /** One round now (tests, the schedule): answers how many observations it handled. */
  async runOnce(): Promise<number> {
    const model = this.#options.model();
    if (model === undefined) return 0;
    const { memory } = this.#options;
    const nowMs = memory.nowMs();
    const claimed = await memory.queue.claim(
      this.#options.owner,
      this.#options.batch ?? WORKER_DEFAULTS.batch,
      nowMs,
      this.#options.leaseMs ?? WORKER_DEFAULTS.leaseMs,
    );
    for (const observation of claimed) {
      // Stopping: the rest stay claimed until their lease ends, then another round takes them.
      if (this.#abort.signal.aborted) break;
      await this.#handle(model, observation);
    }
    await memory.queue.prune(memory.nowSec() - WORKER_DEFAULTS.keepFinishedSec);
    return claimed.length;
  }

  async #handle(model: LanguageModel, observation: Observation): Promise<void> {
    const { memory, owner, log } = this.#options;
    try {
      const answer = await model.chat({
        role: 'background',
        messages: extractionPrompt(observation.excerpt),
        signal: this.#abort.signal,
      });
      const facts = parseExtraction(answer.text, observation.excerpt);
      for (const fact of facts) {
        const stored = await memory.facts.add({
          selfId: observation.selfId,
          groupId: observation.groupId,
          userId: fact.userId,
          content: fact.content,
          source: 'model',
          confidence: fact.confidence,
          now: memory.nowSec(),
        });
        if (stored) memory.counters.facts_stored++;
      }
      await memory.queue.finish(observation.id, owner, memory.nowSec());
      memory.counters.observations_done++;
    } catch (error) {
      const retryAt = memory.nowMs() + (this.#options.retryDelayMs ?? WORKER_DEFAULTS.retryDelayMs);
      const status = await memory.queue.fail(
        observation.id,
        owner,
        errorMessage(error),
        this.#options.maxAttempts ?? WORKER_DEFAULTS.maxAttempts,
        retryAt,
        memory.nowSec(),
      );
      if (status === 'failed') memory.counters.observations_failed++;
      log.warn({ observation: observation.id, status, error: errorMessage(error) }, 'agent memory: extraction failed');
    }
  }

  #schedule(): void {
    if (!this.#started) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#running = this.runOnce()
        .then(
          () => undefined,
          (error: unknown) => this.#options.log.warn({ error: errorMessage(error) }, 'agent memory: a round failed'),
        )
        .finally(() => {
          this.#running = undefined;
          this.#schedule();
        });
    }, this.#options.intervalMs ?? WORKER_DEFAULTS.intervalMs);
  }
}
