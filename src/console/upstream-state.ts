/**
 * Expected failures of what the console depends on (the community hub unreachable: 502; the
 * database busy: 503) are news once, not once per request: each route remembers its current
 * failure, a new or different one is logged at warn without a stack, and the first success after
 * it is logged once at info. Unexpected 5xx are still logged each time, with the error.
 */
export class UpstreamState {
  readonly #failing = new Map<string, string>();

  get failingRoutes(): number {
    return this.#failing.size;
  }

  /** True when this is news: the route was healthy, or failed for another reason. */
  failed(route: string, detail: string): boolean {
    if (this.#failing.get(route) === detail) return false;
    this.#failing.set(route, detail);
    return true;
  }

  /** True when the route had been failing. */
  recovered(route: string): boolean {
    return this.#failing.delete(route);
  }
}

/** Statuses that report a dependency's state rather than a fault of the console itself. */
export const isUpstreamStatus = (status: number): boolean => status === 502 || status === 503 || status === 504;
