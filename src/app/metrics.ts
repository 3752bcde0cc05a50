/**
 * The Prometheus metrics of `chorus serve` (GET {base}/api/metrics, docs/guide/troubleshooting.md),
 * through prom-client on a registry of its own. Decisions are counted as they happen (a
 * labelled increment and a histogram observation per message); queue sizes, drops, cache and hub
 * client counters are read from the running objects when scraped, so watching adds nothing to
 * their work. Node's own metrics (event-loop lag, heap, RSS) come from prom-client's defaults.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RepeaterDecision } from '../repeater/index.ts';

export interface MetricsSources {
  /** Queue name → current size. */
  queues(): Record<string, number>;
  /** Part → counter name → value (learning, mirror, caches, community client…). */
  counters(): Record<string, Record<string, number>>;
  /** The repeater's bundle-cache counters since start (hits, negativeHits, loads, joined, …). */
  bundleCache(): Record<string, number>;
}

const LATENCY_BUCKETS_SEC = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Learning waits in a queue by design: its lag runs from milliseconds to tens of seconds. */
const LEARN_LAG_BUCKETS_SEC = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * How often the event-loop delay monitor samples. prom-client's 10 ms woke an idle service 100
 * times a second, the largest share of its idle CPU (docs/rules.md#idle-quiet; bench:idle measured
 * 6.0 ms/s at 100 ms, 4.8 at 250 ms, 3.7 at 1 s on a loaded 2-core machine). A stall longer than
 * a second is measured whole, a shorter one in proportion to its length, and several are caught
 * by `_lag_max_seconds` over a scrape; `chorus_nodejs_eventloop_lag_seconds`, measured at each
 * scrape, is unchanged.
 */
const EVENT_LOOP_SAMPLE_MS = 1000;

export class ChorusMetrics {
  readonly registry = new Registry();
  readonly #received: Counter;
  readonly #decisions: Counter<'reason'>;
  readonly #replies: Counter<'kind'>;
  readonly #learnWrites: Counter;
  readonly #decisionLatency: Histogram;
  readonly #lookupLatency: Histogram;
  readonly #learnLag: Histogram;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({
      register: this.registry,
      prefix: 'chorus_',
      eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
    });
    this.#received = new Counter({
      name: 'chorus_messages_received_total',
      help: 'Group messages received (own echoes left out).',
      registers,
    });
    this.#decisions = new Counter({
      name: 'chorus_decisions_total',
      help: 'Repeater decisions by reason.',
      labelNames: ['reason'],
      registers,
    });
    this.#replies = new Counter({
      name: 'chorus_replies_total',
      help: 'Replies by kind (group, cross-group, community, repeat).',
      labelNames: ['kind'],
      registers,
    });
    this.#learnWrites = new Counter({
      name: 'chorus_learn_writes_total',
      help: 'Messages queued for learning.',
      registers,
    });
    this.#decisionLatency = new Histogram({
      name: 'chorus_decision_latency_seconds',
      help: 'Time to decide on a message (send delays not included).',
      buckets: LATENCY_BUCKETS_SEC,
      registers,
    });
    this.#lookupLatency = new Histogram({
      name: 'chorus_lookup_latency_seconds',
      help: 'Time to decide on a message that needed a corpus lookup.',
      buckets: LATENCY_BUCKETS_SEC,
      registers,
    });
    this.#learnLag = new Histogram({
      name: 'chorus_learn_lag_seconds',
      help: 'Time from a message queued for learning to its pair committed to the corpus.',
      buckets: LEARN_LAG_BUCKETS_SEC,
      registers,
    });
    new Gauge({
      name: 'chorus_queue_size',
      help: 'Items waiting in a queue.',
      labelNames: ['queue'],
      registers,
      collect() {
        this.reset();
        for (const [queue, size] of Object.entries(sources.queues())) this.set({ queue }, size);
      },
    });
    new Gauge({
      name: 'chorus_queue_dropped',
      help: 'Items a queue dropped or skipped since start, by queue and why.',
      labelNames: ['queue', 'why'],
      registers,
      collect() {
        this.reset();
        for (const [part, counters] of Object.entries(sources.counters())) {
          for (const [name, value] of Object.entries(counters)) {
            if (/drop|skip|full|abandon|reject/i.test(name)) this.set({ queue: part, why: name }, value);
          }
        }
      },
    });
    new Gauge({
      name: 'chorus_component_counter',
      help: 'Every counter of the corpus side (learning, mirror, caches, community client outcomes), by part and name.',
      labelNames: ['part', 'name'],
      registers,
      collect() {
        this.reset();
        for (const [part, counters] of Object.entries(sources.counters())) {
          for (const [name, value] of Object.entries(counters))
            if (Number.isFinite(value)) this.set({ part, name }, value);
        }
      },
    });
    new Gauge({
      name: 'chorus_bundle_cache_hit_ratio',
      help: 'Reply-bundle cache hits (found or known miss) over all lookups since start.',
      registers,
      collect() {
        const c = sources.bundleCache();
        const hits = (c.hits ?? 0) + (c.negativeHits ?? 0);
        const total = hits + (c.loads ?? 0) + (c.joined ?? 0);
        this.set(total > 0 ? hits / total : 0);
      },
    });
  }

  record(decision: RepeaterDecision): void {
    if (decision.reason !== 'self') this.#received.inc();
    this.#decisions.inc({ reason: decision.reason });
    if (decision.outcome === 'replied') this.#replies.inc({ kind: replyKind(decision.reason) });
    if (decision.learn === 'queued') this.#learnWrites.inc();
    const seconds = decision.latencyMs / 1000;
    this.#decisionLatency.observe(seconds);
    if (decision.cache !== null) this.#lookupLatency.observe(seconds);
  }

  /** One learned pair: `lagMs` from enqueue to commit (the learn worker's measure). */
  learned(lagMs: number): void {
    this.#learnLag.observe(lagMs / 1000);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

function replyKind(reason: RepeaterDecision['reason']): string {
  return reason === 'threshold' ? 'group' : reason;
}
