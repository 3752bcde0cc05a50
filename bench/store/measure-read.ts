import { setTimeout as sleep } from 'node:timers/promises';
import type { ReplySettings } from '../../src/store/corpus-store.ts';
import type { LocalStore } from '../../src/store/open-store.ts';
import { Samples, type Summary } from '../lib/stats.ts';
import type { BareDriver } from './bare.ts';

/**
 * Reply lookups are skipped at pool pressure 0.55; on SQLite that is the busy share of the last
 * second, which a tight loop of lookups exceeds. Staying below it keeps every timed lookup a real
 * query (a bot answers far fewer than the tens of thousands of lookups a second this loop issues).
 */
const PACE_BELOW_PRESSURE = 0.4;

export interface LatencyComparison {
  ours: Summary;
  bare: Summary;
  /** Lookups that found a context, ours and bare (they must agree). */
  oursFound: number;
  bareFound: number;
  /** Lookups the store skipped for pool pressure (must be 0 for the figures to mean anything). */
  skipped: number;
}

async function pace(store: LocalStore): Promise<void> {
  while (store.engine.pressure() >= PACE_BELOW_PRESSURE) await sleep(1);
}

async function settle(value: number | Promise<number>): Promise<number> {
  return typeof value === 'number' ? value : await value;
}

/**
 * One lookup by the store and one by the bare driver per key, alternating which goes first so
 * both see the same caches. `warmup` keys run first and are not recorded.
 */
async function compare(
  store: LocalStore,
  keys: readonly string[],
  warmup: number,
  ours: (key: string) => Promise<boolean>,
  bare: (key: string) => number | Promise<number>,
  beforeOurs: (key: string) => void = () => undefined,
): Promise<Omit<LatencyComparison, 'skipped'>> {
  const oursSamples = new Samples(keys.length);
  const bareSamples = new Samples(keys.length);
  let oursFound = 0;
  let bareFound = 0;
  for (let i = -warmup; i < keys.length; i++) {
    const key = keys[(i + keys.length) % keys.length] ?? '';
    const record = i >= 0;
    await pace(store);
    for (const turn of i & 1 ? ['ours', 'bare'] : ['bare', 'ours']) {
      if (turn === 'ours') beforeOurs(key);
      const started = performance.now();
      if (turn === 'ours') {
        const found = await ours(key);
        const elapsed = (performance.now() - started) * 1000;
        if (record) {
          oursSamples.add(elapsed);
          if (found) oursFound++;
        }
      } else {
        // Bare SQLite calls are synchronous: no await, so no extra microtask in its figure.
        const rows = await settle(bare(key));
        const elapsed = (performance.now() - started) * 1000;
        if (record) {
          bareSamples.add(elapsed);
          if (rows > 0) bareFound++;
        }
      }
    }
  }
  return { ours: oursSamples.summary(), bare: bareSamples.summary(), oursFound, bareFound };
}

/**
 * find_by_keywords_for_reply with the key's snapshot dropped just before each lookup, outside the
 * timing: one key's entry (an O(1) delete), so the figure is the query, not cache maintenance.
 */
export async function replyUncached(
  store: LocalStore,
  bare: BareDriver,
  keys: readonly string[],
  warmup: number,
): Promise<LatencyComparison> {
  const corpus = store.corpus;
  const skippedBefore = corpus.stats().skippedPressure;
  const result = await compare(
    store,
    keys,
    warmup,
    async (key) => (await corpus.findByKeywordsForReply(key)) !== null,
    (key) => bare.replyLookup(key),
    (key) => corpus.invalidateSnapshots(key),
  );
  return { ...result, skipped: corpus.stats().skippedPressure - skippedBefore };
}

/**
 * Warm snapshot cache: every key is loaded once, then looked up again and again. The bare figure
 * is the physical limit of a cache hit: Map.get on the same keys.
 */
export async function replyWarm(
  store: LocalStore,
  settings: ReplySettings,
  keys: readonly string[],
  lookups: number,
): Promise<{ ours: Summary; bare: Summary; hits: number }> {
  // A TTL longer than the measurement, so no entry expires while it runs.
  store.corpus.configure({ ...settings, replySnapshotSec: 600 });
  try {
    const map = new Map<string, unknown>();
    for (const key of keys) {
      await pace(store);
      map.set(key, await store.corpus.findByKeywordsForReply(key));
    }
    const hitsBefore = store.corpus.stats().hits;
    const ours = new Samples(lookups);
    const bare = new Samples(lookups);
    let sink = 0;
    for (let i = 0; i < lookups; i++) {
      const key = keys[(i * 7919) % keys.length] ?? '';
      let started = performance.now();
      const context = await store.corpus.findByKeywordsForReply(key);
      ours.add((performance.now() - started) * 1000);
      started = performance.now();
      const cached = map.get(key);
      bare.add((performance.now() - started) * 1000);
      if (context !== null && cached !== null) sink++;
    }
    void sink;
    return { ours: ours.summary(), bare: bare.summary(), hits: store.corpus.stats().hits - hitsBefore };
  } finally {
    store.corpus.configure(settings);
  }
}

export async function contextExists(
  store: LocalStore,
  bare: BareDriver,
  keys: readonly string[],
  warmup: number,
): Promise<LatencyComparison> {
  const result = await compare(
    store,
    keys,
    warmup,
    (key) => store.corpus.contextExistsByKeywords(key),
    (key) => bare.exists(key),
  );
  return { ...result, skipped: 0 };
}
