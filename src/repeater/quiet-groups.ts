/**
 * What proactive speech needs to know per group, kept in O(1) per message on the hot path
 * (docs/repeater.md#proactive-speech): when a member last spoke and through which account, when the
 * bot last spoke, when the background check last handled the group's silence, and mutes.
 */
import type { RepeaterDecision } from './decision.ts';

export interface QuietGroup {
  /** The account that heard the newest message (it speaks for the group). */
  selfId: number;
  /** Monotonic ms of the newest member message. */
  heardMs: number;
  /** Monotonic ms of the bot's newest message here (a reply, a repeat, a proactive line, its own echo). */
  spokeMs: number;
  /** Monotonic ms at which the check last spoke or skipped for this silence. */
  handledMs: number;
}

/** Reasons that say the message never joined the group's conversation as a member's. */
const NOT_HEARD = new Set<RepeaterDecision['reason']>(['self', 'duplicate-id', 'duplicate-event', 'group-banned']);

export class QuietGroups {
  /**
   * Told each member message the bot did not answer (the group now waits for a silence): the check
   * is armed then if it sleeps, so an idle service runs no timer (docs/rules.md#idle-quiet). Kept O(1).
   */
  onWaiting: ((groupId: number) => void) | undefined;
  readonly #groups = new Map<number, QuietGroup>();
  /** `${groupId}|${selfId}` (selfId 0: the whole group) → monotonic ms the mute ends. */
  readonly #mutes = new Map<string, number>();

  /** One decided message (the hot path: two map operations). */
  observe(decision: Pick<RepeaterDecision, 'groupId' | 'selfId' | 'reason' | 'outcome'>, nowMs: number): void {
    const group = this.#groups.get(decision.groupId);
    if (decision.reason === 'self') {
      if (group) group.spokeMs = nowMs;
      return;
    }
    if (NOT_HEARD.has(decision.reason)) return;
    if (group) {
      group.selfId = decision.selfId;
      group.heardMs = nowMs;
    } else {
      this.#groups.set(decision.groupId, { selfId: decision.selfId, heardMs: nowMs, spokeMs: 0, handledMs: 0 });
    }
    if (decision.outcome === 'replied') (this.#groups.get(decision.groupId) as QuietGroup).spokeMs = nowMs;
    else this.onWaiting?.(decision.groupId);
  }

  spoke(groupId: number, nowMs: number): void {
    const group = this.#groups.get(groupId);
    if (group) group.spokeMs = nowMs;
  }

  handled(groupId: number, nowMs: number): void {
    const group = this.#groups.get(groupId);
    if (group) group.handledMs = nowMs;
  }

  /** Groups a member spoke in since the bot last spoke or the check last handled them. */
  *waiting(): Generator<[number, Readonly<QuietGroup>]> {
    for (const [groupId, group] of this.#groups) {
      if (group.heardMs > group.spokeMs && group.heardMs > group.handledMs) yield [groupId, group];
    }
  }

  /** A mute notice: `selfId` 0 mutes the whole group; `durationMs` 0 lifts it. */
  mute(groupId: number, selfId: number, durationMs: number, nowMs: number): void {
    const key = `${groupId}|${selfId}`;
    if (durationMs > 0) this.#mutes.set(key, nowMs + durationMs);
    else this.#mutes.delete(key);
  }

  muted(groupId: number, selfId: number, nowMs: number): boolean {
    return (this.#mutes.get(`${groupId}|${selfId}`) ?? 0) > nowMs || (this.#mutes.get(`${groupId}|0`) ?? 0) > nowMs;
  }

  /** Drops groups nobody spoke in for `idleMs` and ended mutes. */
  prune(idleMs: number, nowMs: number): void {
    for (const [groupId, group] of this.#groups) if (group.heardMs < nowMs - idleMs) this.#groups.delete(groupId);
    for (const [key, until] of this.#mutes) if (until <= nowMs) this.#mutes.delete(key);
  }
}
