import { ratio, type Summary } from '../lib/stats.ts';
import { fmt, formatTable } from '../lib/table.ts';
import type { EngineChoice } from './args.ts';
import type { CorpusTotals } from './generate.ts';
import type { BulkComparison, BulkFigure } from './measure-bulk.ts';
import type { LatencyComparison } from './measure-read.ts';
import type { BatchThroughput } from './measure-batch.ts';
import type { Throughput } from './measure-write.ts';

export interface EngineResult {
  engine: EngineChoice;
  n: number;
  load: { ms: number; totals: CorpusTotals };
  reply: LatencyComparison;
  warm: { ours: Summary; bare: Summary; hits: number };
  exists: LatencyComparison;
  learn1: Throughput;
  learn8: Throughput;
  /** The learn worker's batches (in-service learning under a backlog). */
  learnBatch: BatchThroughput;
  learnBare: Throughput;
  bulk: BulkComparison;
}

const STALL_TARGET_MS = 20;
const REPLY_RATIO_TARGET = 1.5;
const REPLY_P99_TARGET_US = 1000;
const LEARN8_TARGET_PER_S: Record<EngineChoice, number> = { sqlite: 5000, postgres: 2000 };
/** In-service learning (the worker's batches) against learn_answer with 8 writers. */
const BATCH_VS_LEARN8_TARGET = 0.8;

function verdict(met: boolean): string {
  return met ? 'met' : 'MISSED';
}

function latencyRows(label: string, c: { ours: Summary; bare: Summary }, targets: [string, string] = ['', '']) {
  return [
    [`${label} p50 (µs)`, fmt(c.ours.p50), fmt(c.bare.p50), fmt(ratio(c.ours.p50, c.bare.p50), 2), targets[0]],
    [`${label} p99 (µs)`, fmt(c.ours.p99), fmt(c.bare.p99), fmt(ratio(c.ours.p99, c.bare.p99), 2), targets[1]],
  ];
}

function bulkRows(label: string, ours: BulkFigure, bare: BulkFigure, bareName: string) {
  return [
    [
      `${label} max stall (ms)`,
      fmt(ours.maxStallMs),
      `${fmt(bare.maxStallMs)} ${bareName}`,
      fmt(ratio(ours.maxStallMs, bare.maxStallMs), 2),
      `≤ ${STALL_TARGET_MS} ms: ${verdict(ours.maxStallMs <= STALL_TARGET_MS)}`,
    ],
    [
      `${label} elapsed (ms)`,
      fmt(ours.elapsedMs),
      `${fmt(bare.elapsedMs)} ${bareName}`,
      fmt(ratio(ours.elapsedMs, bare.elapsedMs), 2),
      '',
    ],
  ];
}

function share(part: number, whole: number): string {
  return `${((100 * part) / whole).toFixed(1)}%`;
}

export function maxStallMs(result: EngineResult): number {
  return Math.max(result.bulk.deleteOurs.maxStallMs, result.bulk.cleanupOurs.maxStallMs);
}

export function formatEngine(result: EngineResult): string {
  const { reply, learn1, learn8, learnBatch, learnBare, bulk } = result;
  const batchVsLearn8 = learnBatch.perSecond / learn8.perSecond;
  const replyRatio = ratio(reply.ours.p99, reply.bare.p99);
  const learnTarget = LEARN8_TARGET_PER_S[result.engine];
  const rows = [
    ...latencyRows('reply uncached', reply, [
      '',
      `≤ ${REPLY_RATIO_TARGET}x: ${verdict(replyRatio <= REPLY_RATIO_TARGET)}` +
        (result.engine === 'sqlite'
          ? `, < ${REPLY_P99_TARGET_US} µs: ${verdict(reply.ours.p99 < REPLY_P99_TARGET_US)}`
          : ''),
    ]),
    ...latencyRows('reply warm (bare: Map.get)', result.warm),
    ...latencyRows('context_exists', result.exists),
    [
      'learn_answer 1 writer (/s)',
      fmt(learn1.perSecond),
      fmt(learnBare.perSecond),
      fmt(learnBare.perSecond / learn1.perSecond, 2),
      '',
    ],
    [
      'learn_answer 8 writers (/s)',
      fmt(learn8.perSecond),
      fmt(learnBare.perSecond),
      fmt(learnBare.perSecond / learn8.perSecond, 2),
      `≥ ${learnTarget}/s: ${verdict(learn8.perSecond >= learnTarget)}`,
    ],
    [
      'learn batches, learn worker (pairs/s; ratio: /8 writers)',
      fmt(learnBatch.perSecond),
      fmt(learn8.perSecond),
      fmt(batchVsLearn8, 2),
      `≥ ${BATCH_VS_LEARN8_TARGET}x 8 writers: ${verdict(batchVsLearn8 >= BATCH_VS_LEARN8_TARGET)}`,
    ],
    ...bulkRows('delete_expired', bulk.deleteOurs, bulk.deleteBare, '(1 DELETE)'),
    ...bulkRows('find_for_cleanup', bulk.cleanupOurs, bulk.cleanupBare, '(3 scans)'),
  ];
  const t = result.load.totals;
  const n = result.n;
  const lines = [
    `== ${result.engine}: ${n} contexts, ${t.answers} answers, ${t.messages} messages, ${t.bans} bans; loaded in ${(result.load.ms / 1000).toFixed(1)} s (${Math.round((t.contexts + t.answers + t.messages + t.bans) / (result.load.ms / 1000))} rows/s)`,
    formatTable(['measure', 'ours', 'bare', 'ratio', 'target'], rows),
    'ratio: ours/bare for times, bare/ours for rates (above 1 = slower than the bare driver).',
    `reply lookups: ${reply.ours.count} timed, found ${reply.oursFound} (bare ${reply.bareFound}), skipped for pressure ${reply.skipped}; warm hits ${result.warm.hits}/${result.warm.ours.count}; exists found ${result.exists.oursFound} (bare ${result.exists.bareFound})`,
    `learn_answer: ${learn1.events} events each run, contexts created ${learn1.created} (1 writer), ${learn8.created} (8 writers), ${learnBare.created} (bare)`,
    `learn batches: ${learnBatch.events} events in ${learnBatch.batches} batches (largest ${learnBatch.largestBatch}), contexts created ${learnBatch.created}, failed ${learnBatch.failed}; the "bare" column of that row is learn_answer with 8 writers`,
    `delete_expired: ${bulk.deleteOurs.contexts} contexts (${share(bulk.deleteOurs.contexts, n)} of n; bare DELETE ${bulk.deleteBare.contexts}), cascading ${bulk.deleteOurs.answers} answers and ${bulk.deleteOurs.messages} messages`,
    `find_for_cleanup: ${bulk.cleanupOurs.contexts} contexts (${share(bulk.cleanupOurs.contexts, n)} of n) loaded with ${bulk.cleanupOurs.answers} answers and ${bulk.cleanupOurs.messages} messages (bare scans: ${bulk.cleanupBare.contexts}, ${bulk.cleanupBare.answers}, ${bulk.cleanupBare.messages})`,
    `event-loop delay with nothing running: ${fmt(bulk.idleStallMs)} ms (noise floor of the stall figures)`,
  ];
  return lines.join('\n');
}

/** The summary line of docs/rules.md#style-bench. */
export function resultLine(result: EngineResult): string {
  return [
    'RESULT bench:store',
    `engine=${result.engine}`,
    `n=${result.n}`,
    `reply_p99_us=${Math.round(result.reply.ours.p99)}`,
    `ratio_vs_bare=${ratio(result.reply.ours.p99, result.reply.bare.p99).toFixed(2)}`,
    `learn_per_s=${Math.round(result.learn1.perSecond)}`,
    `learn8_per_s=${Math.round(result.learn8.perSecond)}`,
    `learn_batch_per_s=${Math.round(result.learnBatch.perSecond)}`,
    `batch_vs_learn8=${(result.learnBatch.perSecond / result.learn8.perSecond).toFixed(2)}`,
    `max_stall_ms=${maxStallMs(result).toFixed(1)}`,
  ].join(' ');
}
