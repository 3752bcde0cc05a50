import type { LearnInput } from '../../src/domain/corpus.ts';
import type { LocalStore } from '../../src/store/open-store.ts';
import type { BareDriver } from './bare.ts';

export interface Throughput {
  perSecond: number;
  events: number;
  created: number;
}

/**
 * Sequential runs alternate in blocks of this many events, so that both sides meet the same
 * database state (PostgreSQL's full-page writes after a checkpoint, SQLite's WAL checkpoints).
 */
const BLOCK_EVENTS = 250;

/** Events run untimed first: statements get prepared on the connections, caches fill. */
function warmupCount(inputs: readonly LearnInput[]): number {
  return Math.min(200, Math.floor(inputs.length / 10));
}

class Tally {
  events = 0;
  created = 0;
  ms = 0;

  result(): Throughput {
    return { perSecond: this.events / (this.ms / 1000), events: this.events, created: this.created };
  }
}

async function ours(store: LocalStore, inputs: readonly LearnInput[], writers: number, tally: Tally): Promise<void> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      for (let input = inputs[next++]; input; input = inputs[next++]) {
        if (await store.corpus.learnAnswer(input)) tally.created++;
      }
    }),
  );
  tally.ms += performance.now() - started;
  tally.events += inputs.length;
}

async function bare(driver: BareDriver, inputs: readonly LearnInput[], tally: Tally): Promise<void> {
  const started = performance.now();
  for (const input of inputs) {
    const result = driver.learn(input);
    if (typeof result === 'boolean' ? result : await result) tally.created++;
  }
  tally.ms += performance.now() - started;
  tally.events += inputs.length;
}

/**
 * learn_answer from one writer (sequential awaits) against the bare driver doing the same
 * statements in one transaction per event, sequentially; each side has its own events (same mix,
 * different new keys) and the two alternate block by block.
 */
export async function learnSequential(
  store: LocalStore,
  driver: BareDriver,
  oursInputs: readonly LearnInput[],
  bareInputs: readonly LearnInput[],
): Promise<{ ours: Throughput; bare: Throughput }> {
  const warmup = warmupCount(oursInputs);
  await ours(store, oursInputs.slice(0, warmup), 1, new Tally());
  await bare(driver, bareInputs.slice(0, warmup), new Tally());
  const oursTally = new Tally();
  const bareTally = new Tally();
  for (let from = warmup; from < oursInputs.length; from += BLOCK_EVENTS) {
    await ours(store, oursInputs.slice(from, from + BLOCK_EVENTS), 1, oursTally);
    await bare(driver, bareInputs.slice(from, from + BLOCK_EVENTS), bareTally);
  }
  return { ours: oursTally.result(), bare: bareTally.result() };
}

/** learn_answer from `writers` async loops sharing one queue of events. */
export async function learnConcurrent(
  store: LocalStore,
  inputs: readonly LearnInput[],
  writers: number,
): Promise<Throughput> {
  const warmup = warmupCount(inputs);
  // Concurrent warm-up, so that every pooled connection has its statements prepared.
  await ours(store, inputs.slice(0, warmup), writers, new Tally());
  const tally = new Tally();
  await ours(store, inputs.slice(warmup), writers, tally);
  return tally.result();
}
