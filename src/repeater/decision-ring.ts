/**
 * The last decisions of each group, for the console's "why did it (not) answer" page. Told every
 * decision the repeater makes (one small object kept per decision, no lookups, nothing awaited),
 * bounded per group and in the number of groups: the group quiet the longest is forgotten first.
 */
import type { RepeaterDecision } from './decision.ts';

export interface DecisionRingOptions {
  perGroup: number;
  maxGroups: number;
}

export const DECISION_RING_DEFAULTS: DecisionRingOptions = { perGroup: 100, maxGroups: 2000 };

export interface KeptDecision {
  readonly atMs: number;
  readonly decision: RepeaterDecision;
}

interface GroupRing {
  items: KeptDecision[];
  /** Next slot to write once the ring is full. */
  next: number;
  total: number;
  lastAtMs: number;
}

export class DecisionRing {
  readonly #options: DecisionRingOptions;
  /** Insertion order is recency order: a group is moved to the end on each decision. */
  readonly #groups = new Map<number, GroupRing>();

  constructor(options: Partial<DecisionRingOptions> = {}) {
    this.#options = { ...DECISION_RING_DEFAULTS, ...options };
  }

  get perGroup(): number {
    return this.#options.perGroup;
  }

  record(decision: RepeaterDecision, atMs: number): void {
    let ring = this.#groups.get(decision.groupId);
    if (ring) {
      this.#groups.delete(decision.groupId);
    } else {
      ring = { items: [], next: 0, total: 0, lastAtMs: atMs };
      if (this.#groups.size >= this.#options.maxGroups) {
        const oldest = this.#groups.keys().next().value as number;
        this.#groups.delete(oldest);
      }
    }
    this.#groups.set(decision.groupId, ring);
    const kept = { atMs, decision };
    if (ring.items.length < this.#options.perGroup) ring.items.push(kept);
    else {
      ring.items[ring.next] = kept;
      ring.next = (ring.next + 1) % this.#options.perGroup;
    }
    ring.total++;
    ring.lastAtMs = atMs;
  }

  /** The newest `limit` decisions of a group, newest first. */
  recent(groupId: number, limit: number): KeptDecision[] {
    const ring = this.#groups.get(groupId);
    if (!ring) return [];
    const ordered = [...ring.items.slice(ring.next), ...ring.items.slice(0, ring.next)];
    return ordered.slice(-limit).reverse();
  }

  /** The groups with decisions kept, the most recently active first. */
  groups(): { groupId: number; kept: number; total: number; lastAtMs: number; last: RepeaterDecision | null }[] {
    const out = [...this.#groups].map(([groupId, ring]) => {
      const lastIndex =
        ring.items.length < this.#options.perGroup
          ? ring.items.length - 1
          : (ring.next + ring.items.length - 1) % ring.items.length;
      return {
        groupId,
        kept: ring.items.length,
        total: ring.total,
        lastAtMs: ring.lastAtMs,
        last: ring.items[lastIndex]?.decision ?? null,
      };
    });
    return out.reverse();
  }
}
