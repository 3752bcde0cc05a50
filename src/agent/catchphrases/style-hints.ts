/**
 * The approved catchphrases of a group as style hints for the model's prompt (src/agent/parts.ts
 * `StyleHintSource`). Only phrases the console approved are ever returned, at most `limit`, most
 * said first; each group's list is kept `ttlMs` (a reply path asks once per model call), and this
 * process forgets a group's list at once when the console resolves one of its phrases here. Other
 * processes of a fleet see the change within `ttlMs`.
 */
import type { AgentScope, StyleHintSource } from '../parts.ts';

export const STYLE_HINTS = { limit: 12, ttlMs: 30_000, maxGroups: 2_000 } as const;

export interface ApprovedPhrases {
  approved(groupId: number, selfId: number, limit: number): Promise<string[]>;
}

export interface CatchphraseHintsOptions {
  book: ApprovedPhrases;
  /** Monotonic milliseconds. */
  nowMs: () => number;
  limit?: number;
  ttlMs?: number;
  /** Told a failed read (logged by the wiring); the call then answers no hints. */
  onError?: (error: unknown) => void;
}

interface Cached {
  at: number;
  phrases: Promise<readonly string[]>;
}

export class CatchphraseHints implements StyleHintSource {
  readonly #options: CatchphraseHintsOptions;
  readonly #cache = new Map<string, Cached>();

  constructor(options: CatchphraseHintsOptions) {
    this.#options = options;
  }

  approvedPhrases(scope: AgentScope): Promise<readonly string[]> {
    const key = `${scope.groupId}:${scope.selfId}`;
    const now = this.#options.nowMs();
    const cached = this.#cache.get(key);
    if (cached && now - cached.at < (this.#options.ttlMs ?? STYLE_HINTS.ttlMs)) return cached.phrases;
    const limit = this.#options.limit ?? STYLE_HINTS.limit;
    const phrases = this.#options.book.approved(scope.groupId, scope.selfId, limit).then(
      (found) => Object.freeze(found.slice(0, limit)),
      (error: unknown) => {
        // Hints are optional: a failed read costs the reply nothing, and is not kept.
        this.#cache.delete(key);
        this.#options.onError?.(error);
        return Object.freeze([] as string[]);
      },
    );
    if (this.#cache.size >= STYLE_HINTS.maxGroups) this.#cache.clear();
    this.#cache.set(key, { at: now, phrases });
    return phrases;
  }

  /** The console resolved a phrase of this group: its lists are read again on the next call. */
  forget(groupId: number): void {
    for (const key of this.#cache.keys()) if (key.startsWith(`${groupId}:`)) this.#cache.delete(key);
  }
}
