/** Sending at a fixed rate from timers, and waiting for a pipeline to drain. */

export interface PaceResult {
  sent: number;
  /** From the first send to the last. */
  elapsedMs: number;
  /** The largest number sent in one tick (catching up after a late timer). */
  maxBatch: number;
}

/**
 * Calls `send` `rate × seconds` times, spread over `seconds`: every `tickMs` a small batch brings
 * the count up to what is due by then, so a late timer is caught up rather than lost and the
 * achieved rate is the target unless the process cannot keep up.
 */
export function sendPaced(options: {
  rate: number;
  seconds: number;
  tickMs: number;
  send: () => void;
}): Promise<PaceResult> {
  const total = Math.round(options.rate * options.seconds);
  const started = performance.now();
  let sent = 0;
  let maxBatch = 0;
  return new Promise((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * options.rate) + 1);
      const batch = due - sent;
      for (; sent < due; sent++) options.send();
      maxBatch = Math.max(maxBatch, batch);
      if (sent >= total) resolve({ sent, elapsedMs: performance.now() - started, maxBatch });
      else setTimeout(tick, options.tickMs);
    };
    tick();
  });
}

/** Polls `done` every 10 ms; false if it did not hold within `timeoutMs`. */
export async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}
