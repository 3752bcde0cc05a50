/**
 * How busy the database is, 0..1 (docs/rules.md#store-pressure). Called on every message, so it must be
 * cheap: no I/O, no allocation beyond a few numbers.
 */
export interface PoolPressure {
  pressure(): number;
  /**
   * True while the database recently failed to hand out a connection (a pool timeout, SQLite
   * busy): the signal that non-critical work (mirror uploads, remote reads) stands back.
   */
  unhealthy?(): boolean;
}

/** How long after a pool failure the database counts as unhealthy. */
export const UNHEALTHY_AFTER_FAILURE_MS = 5_000;
