/**
 * Friend and group-join requests waiting for someone to decide, newest last. Bounded: when full,
 * the oldest goes. A request seen again (same account and flag) is kept once, at its new place.
 */
import type { ChatRequest } from '../domain/chat.ts';

export class RequestInbox {
  readonly #requests: ChatRequest[] = [];

  constructor(private readonly max: number) {}

  add(request: ChatRequest): void {
    this.forget(request.selfId, request.flag);
    this.#requests.push(request);
    if (this.#requests.length > this.max) this.#requests.shift();
  }

  /** False when it was not there. */
  forget(selfId: number, flag: string): boolean {
    const index = this.#requests.findIndex((r) => r.selfId === selfId && r.flag === flag);
    if (index < 0) return false;
    this.#requests.splice(index, 1);
    return true;
  }

  list(): readonly ChatRequest[] {
    return [...this.#requests];
  }
}
