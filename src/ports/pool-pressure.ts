/**
 * How busy the database is, 0..1 (DECISIONS.md "Storage"). Called on every message, so it must be
 * cheap: no I/O, no allocation beyond a few numbers.
 */
export interface PoolPressure {
  pressure(): number;
}
