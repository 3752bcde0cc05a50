/**
 * What keeping the repeater's decisions costs (docs/repeater.md#why; budget: under 10 µs per
 * decision on the reply path). On the path: `DecisionLogBuffer.record` (one push), beside the
 * in-memory DecisionRing the path already tells (the baseline) and their ratio, in CPU time per
 * decision (process.cpuUsage, so a loaded machine inflates it less than wall time). Off the path:
 * the batched write into a real SQLite table, per row, and the cause of a lookup without a ready
 * answer (paid only on such a miss, after a database round trip).
 *
 *   npm run bench:decision-log [-- --quick]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DecisionLogBuffer, rowOf } from '../src/app/decision-log-buffer.ts';
import { silentLog } from '../src/common/log.ts';
import { DEFAULT_REPLY_SETTINGS } from './store/run-engine.ts';
import { DecisionLogStore } from '../src/store/decision-log.ts';
import { openStore } from '../src/store/open-store.ts';
import { DecisionRing, type RepeaterDecision } from '../src/repeater/index.ts';
import type { Context } from '../src/domain/corpus.ts';
import { noCandidateCause } from '../src/repeater/weigh.ts';
import { fmt, formatTable } from './lib/table.ts';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const quick = values.quick ?? false;
const DECISIONS = quick ? 100_000 : 500_000;
const WRITE_ROWS = quick ? 20_000 : 100_000;
const RUNS = quick ? 3 : 5;
const BUDGET_US = 10;

function decisionAt(i: number): RepeaterDecision {
  return {
    groupId: 1000 + (i % 50),
    selfId: 10001,
    userId: 20000 + (i % 300),
    messageId: i,
    outcome: 'skipped',
    reason: 'no-candidate',
    texts: [],
    answerKeywords: null,
    keywords: '周末 爬山',
    learn: 'queued',
    cache: 'loaded',
    threshold: 2,
    latencyMs: 0.8,
    cause: { code: 'below-threshold', params: { answer: '好呀带上零食', count: 1, threshold: 2, others: 3 } },
    rawMessage: `周末一起去爬山吗[CQ:face,id=178] 第${i}句`,
    senderName: `群友${i % 300}`,
  };
}

/** Best CPU µs per call of `work(i)` over the runs. */
function cpuPerCall(count: number, setup: () => (i: number) => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < RUNS; run++) {
    const work = setup();
    const started = process.cpuUsage();
    for (let i = 0; i < count; i++) work(i);
    const used = process.cpuUsage(started);
    best = Math.min(best, (used.user + used.system) / count);
  }
  return best;
}

const decisions = Array.from({ length: DECISIONS }, (_, i) => decisionAt(i));
const noStore = { add: async () => undefined, trim: async () => 0 };
const logUs = cpuPerCall(DECISIONS, () => {
  const buffer = new DecisionLogBuffer({
    store: noStore,
    log: silentLog,
    nowMs: () => 0,
    policy: () => ({ days: 7, maxRows: 200_000 }),
    maxPending: DECISIONS,
    flushEveryMs: 3_600_000,
  });
  return (i) => buffer.record(decisions[i] as RepeaterDecision, i);
});
const ringUs = cpuPerCall(DECISIONS, () => {
  const ring = new DecisionRing();
  return (i) => ring.record(decisions[i] as RepeaterDecision, i);
});

// Off the path: the batch write into SQLite, per row.
const dir = await mkdtemp(join(tmpdir(), 'chorus-bench-decisions-'));
const store = await openStore({ databaseUrl: '', dataDir: dir, poolMax: 1, reply: DEFAULT_REPLY_SETTINGS });
const log = new DecisionLogStore(store.engine);
const rows = decisions.slice(0, WRITE_ROWS).map((d, i) => rowOf(d, i));
const writeStarted = performance.now();
for (let i = 0; i < rows.length; i += 2000) await log.add(rows.slice(i, i + 2000));
const writeUs = ((performance.now() - writeStarted) * 1000) / rows.length;
const trimStarted = performance.now();
const trimmed = await log.trim({ days: 7, maxRows: WRITE_ROWS / 2 }, 0);
const trimMs = performance.now() - trimStarted;
await store.close();
await rm(dir, { recursive: true, force: true });

// Off the path: the cause of a miss, over a context of 30 answers none of which is ready.
const context: Context = {
  keywords: '周末 爬山',
  time: 0,
  triggerCount: 1,
  clearTime: 0,
  bans: [],
  answers: Array.from({ length: 30 }, (_, i) => ({
    keywords: `回答${i}`,
    groupId: 1000 + (i % 5),
    count: 1 + (i % 2),
    time: 0,
    messages: [`回答第${i}句`],
  })),
};
const input = {
  groupId: 1000,
  keywords: '周末 爬山',
  isImage: false,
  toMe: false,
  nicknames: ['小合'],
  threshold: 3,
  crossGroupThreshold: 2,
  banned: new Set<string>(),
  recentReplyKeywords: new Set<string>(),
  recentRaws: new Set<string>(),
  topicCount: () => 0,
};
const facts = { nowSec: 0, saidAt: () => null, bannedEverywhere: () => false };
const causeUs = cpuPerCall(quick ? 20_000 : 100_000, () => () => noCandidateCause(context, input, facts));

console.log(
  formatTable(
    ['measure', 'Chorus', 'baseline', 'ratio'],
    [
      ['reply path: decision log record (CPU µs/decision)', fmt(logUs, 3), fmt(ringUs, 3), (logUs / ringUs).toFixed(2)],
      ['  baseline: the DecisionRing already on the path', '', '', ''],
      ['off the path: SQLite batch write (µs/row)', fmt(writeUs, 2), '', ''],
      [`off the path: trim ${trimmed} rows (ms)`, fmt(trimMs, 1), '', ''],
      ['miss path: cause over 30 answers (CPU µs)', fmt(causeUs, 2), '', ''],
    ],
  ),
);
const ok = logUs < BUDGET_US && trimmed === WRITE_ROWS / 2;
console.log(
  `RESULT bench:decision-log record_us=${logUs.toFixed(3)} ring_us=${ringUs.toFixed(3)} ratio=${(logUs / ringUs).toFixed(2)} write_us_per_row=${writeUs.toFixed(2)} trim_ms=${trimMs.toFixed(1)} miss_cause_us=${causeUs.toFixed(2)} budget_us=${BUDGET_US} ok=${ok}`,
);
if (!ok) process.exitCode = 1;
