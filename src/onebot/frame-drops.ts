/**
 * What the OneBot endpoint drops and why: frames over a connection's rate, events refused by
 * policy, malformed frames and kinds it does not use. Each is counted (the console shows the
 * counters) and logged at a bounded rate, so a misbehaving implementation cannot flood the log.
 */
import type { Log, RateLimitedLog } from '../common/log.ts';
import type { FrameProblem, RefusalReason } from './events.ts';
import { ONEBOT_IGNORED_KINDS_LOGGED_MAX } from './limits.ts';
import type { OneBotDropCounters } from './server-types.ts';

export class FrameDrops {
  readonly #counters: OneBotDropCounters = {
    rate_limited: 0,
    oversized: 0,
    self_id_mismatch: 0,
    malformed: 0,
    ignored: 0,
  };
  readonly #ignoredKindsLogged = new Set<string>();

  constructor(
    private readonly log: Log,
    private readonly limited: RateLimitedLog,
  ) {}

  /** A copy of the counters. */
  counters(): OneBotDropCounters {
    return { ...this.#counters };
  }

  shed(selfId: number, bytes: number): void {
    this.#counters.rate_limited++;
    this.limited.warn(
      'onebot/shed',
      { selfId, bytes, shed: this.#counters.rate_limited },
      'OneBot frames over the connection rate are dropped',
    );
  }

  /** A well-formed event of a kind Chorus does not use: each kind is noted once, up to a bound. */
  ignored(selfId: number, what: string): void {
    this.#counters.ignored++;
    if (this.#ignoredKindsLogged.has(what) || this.#ignoredKindsLogged.size >= ONEBOT_IGNORED_KINDS_LOGGED_MAX) return;
    this.#ignoredKindsLogged.add(what);
    this.log.info({ selfId, kind: what }, 'OneBot events of this kind are ignored (noted once)');
  }

  refused(selfId: number, reason: RefusalReason, detail: string): void {
    this.#counters[reason]++;
    this.limited.warn(`onebot/refused/${reason}`, { selfId, reason, detail }, 'OneBot event refused');
  }

  malformed(selfId: number, problem: FrameProblem): void {
    this.#counters.malformed++;
    this.limited.warn(
      `onebot/malformed/${problem.reason}`,
      { selfId, field: problem.field.slice(0, 120), detail: problem.detail },
      'OneBot frame dropped',
    );
  }
}
