/**
 * A token bucket over frames and bytes for one connection (limits in ./limits.ts). `admit` is one
 * clock read and a few additions, cheap enough to run before a frame is even decoded.
 */
export interface FrameRate {
  readonly framesPerSecond: number;
  readonly framesBurst: number;
  readonly bytesPerSecond: number;
  readonly bytesBurst: number;
}

export class FrameBudget {
  #frames: number;
  #bytes: number;
  #refilledAt: number;

  constructor(
    private readonly rate: FrameRate,
    private readonly now: () => number,
  ) {
    this.#frames = rate.framesBurst;
    this.#bytes = rate.bytesBurst;
    this.#refilledAt = now();
  }

  /** Whether a frame of `bytes` may be processed now; a refused one costs nothing from the bucket. */
  admit(bytes: number): boolean {
    const now = this.now();
    const elapsedSec = Math.max(0, now - this.#refilledAt) / 1000;
    this.#refilledAt = now;
    this.#frames = Math.min(this.rate.framesBurst, this.#frames + elapsedSec * this.rate.framesPerSecond);
    this.#bytes = Math.min(this.rate.bytesBurst, this.#bytes + elapsedSec * this.rate.bytesPerSecond);
    if (this.#frames < 1 || this.#bytes < bytes) return false;
    this.#frames -= 1;
    this.#bytes -= bytes;
    return true;
  }
}
