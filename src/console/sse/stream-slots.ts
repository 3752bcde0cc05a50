/**
 * How many event streams may be open at once, per client address and in all (docs/guide/troubleshooting.md#limits):
 * each held stream costs a socket, a heartbeat timer and a producer, and hundreds of them slowed
 * every other request of the console (issue 33: 700 streams took /health from 5 ms to 0.5 s). A
 * stream takes a slot before its headers go out and gives it back when its socket closes, however
 * that happens (the client left, the producer ended, a stalled socket was ended).
 */
export interface StreamLimits {
  perClient: number;
  total: number;
}

export type SlotGrant =
  { granted: true; release: () => void } | { granted: false; scope: 'client' | 'total'; limit: number };

export interface StreamCounts {
  open: number;
  refused: number;
}

export class StreamSlots {
  readonly #byClient = new Map<string, number>();
  #open = 0;
  #refused = 0;

  constructor(private readonly limits: StreamLimits) {}

  acquire(client: string): SlotGrant {
    const held = this.#byClient.get(client) ?? 0;
    if (held >= this.limits.perClient) return this.#refuse('client', this.limits.perClient);
    if (this.#open >= this.limits.total) return this.#refuse('total', this.limits.total);
    this.#byClient.set(client, held + 1);
    this.#open++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.#open--;
      const left = (this.#byClient.get(client) ?? 1) - 1;
      if (left > 0) this.#byClient.set(client, left);
      else this.#byClient.delete(client);
    };
    return { granted: true, release };
  }

  counts(): StreamCounts {
    return { open: this.#open, refused: this.#refused };
  }

  #refuse(scope: 'client' | 'total', limit: number): SlotGrant {
    this.#refused++;
    return { granted: false, scope, limit };
  }
}
