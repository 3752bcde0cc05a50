/** The table and RESULT line of a fleet run (bench:repeater --processes N). */
import { quantile, shareAtMost } from '../lib/prom.ts';
import { fmt, formatTable } from '../lib/table.ts';
import type { FleetRunResult, ProcessFigures } from './fleet.ts';

export const TARGET_DECISION_P99_MS = 5;
export const TARGET_LEARN_LAG_P99_MS = 1000;

const ms = (seconds: number) => seconds * 1000;

/** The figures a capacity verdict needs, from the fleet's summed histograms. */
export function fleetFigures(result: FleetRunResult) {
  const { total } = result;
  const learned = total.learnLag.count;
  return {
    decisionP50Ms: ms(quantile(total.decisions, 0.5)),
    decisionP99Ms: ms(quantile(total.decisions, 0.99)),
    /** Exact at a bucket bound: the share of decisions taking at most 5 ms. */
    decisionsWithinTarget: shareAtMost(total.decisions, TARGET_DECISION_P99_MS / 1000),
    learnLagP50Ms: ms(quantile(total.learnLag, 0.5)),
    learnLagP99Ms: ms(quantile(total.learnLag, 0.99)),
    lagWithinTarget: shareAtMost(total.learnLag, TARGET_LEARN_LAG_P99_MS / 1000),
    learned,
    learnedPerSecond: learned / (result.messages / result.rateAchieved),
    cpuMsPerPair: learned > 0 ? (total.cpuSec * 1000) / learned : Number.NaN,
    postgresCpuMsPerPair:
      result.postgresCpuSec !== null && learned > 0 ? (result.postgresCpuSec * 1000) / learned : Number.NaN,
  };
}

/**
 * Why the run did not meet its targets (empty: it did): the rate was offered, nothing was skipped
 * or dropped, every frame was decided and learned in time, 99 % of decisions within 5 ms and of
 * learn lags within 1 s.
 */
export function misses(result: FleetRunResult): string[] {
  const figures = fleetFigures(result);
  const { total } = result;
  const why: string[] = [];
  if (!result.drained) why.push('not drained in time');
  if (result.rateAchieved < result.rateOffered * 0.97) why.push(`sender reached ${fmt(result.rateAchieved)} msg/s`);
  if (total.skippedPressure > 0) why.push(`${total.skippedPressure} learns skipped`);
  if (total.droppedFull > 0) why.push(`${total.droppedFull} learns dropped (queue full)`);
  if (total.lookupsDropped > 0) why.push(`${total.lookupsDropped} lookups skipped or timed out`);
  if (total.decisionErrors > 0) why.push(`${total.decisionErrors} decisions in error`);
  if (!(figures.decisionsWithinTarget >= 0.99)) why.push(`decision p99 ${fmt(figures.decisionP99Ms, 2)} ms`);
  if (figures.learned > 0 && !(figures.lagWithinTarget >= 0.99)) {
    why.push(`learn lag p99 ${fmt(figures.learnLagP99Ms, 0)} ms`);
  }
  return why;
}

export function sustained(result: FleetRunResult): boolean {
  return misses(result).length === 0;
}

function processRow(label: string, figures: ProcessFigures): string[] {
  return [
    label,
    `${figures.decisions.count}`,
    fmt(ms(quantile(figures.decisions, 0.99)), 2),
    `${figures.learnLag.count}`,
    fmt(ms(quantile(figures.learnLag, 0.99)), 1),
    `${figures.skippedPressure}`,
    fmt(figures.cpuSec, 2),
    fmt(figures.eventLoopMaxMs, 1),
  ];
}

export function formatFleet(result: FleetRunResult): string {
  const f = fleetFigures(result);
  const { total } = result;
  const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');
  const rows: string[][] = [
    [
      'rate offered / achieved (msg/s)',
      `${result.rateOffered} / ${fmt(result.rateAchieved)}`,
      fmt(result.rateAchieved / result.rateOffered, 3),
      verdict(result.rateAchieved >= result.rateOffered * 0.97),
    ],
    [
      'decisions / frames (all processes)',
      `${total.decisions.count} / ${result.framesPerProcess * result.processes}`,
      '',
      verdict(result.drained),
    ],
    ['decision p50 (ms, from the histogram)', fmt(f.decisionP50Ms, 3), '', ''],
    [
      'decision p99 (ms, from the histogram)',
      fmt(f.decisionP99Ms, 3),
      `< ${TARGET_DECISION_P99_MS}`,
      verdict(f.decisionsWithinTarget >= 0.99),
    ],
    ['decisions within 5 ms (share)', fmt(f.decisionsWithinTarget * 100, 2) + ' %', '>= 99 %', ''],
    ['learn lag p50 (ms)', fmt(f.learnLagP50Ms, 1), '', ''],
    [
      'learn lag p99 (ms)',
      fmt(f.learnLagP99Ms, 1),
      `< ${TARGET_LEARN_LAG_P99_MS}`,
      verdict(f.learned === 0 || f.lagWithinTarget >= 0.99),
    ],
    ['pairs learned / queued', `${f.learned} / ${total.learnQueued}`, '', ''],
    ['pairs learned per second', fmt(f.learnedPerSecond), '', ''],
    ['learning skipped under pressure', `${total.skippedPressure}`, '0', verdict(total.skippedPressure === 0)],
    ['learning dropped (queue full)', `${total.droppedFull}`, '0', verdict(total.droppedFull === 0)],
    ['reply lookups skipped or timed out', `${total.lookupsDropped}`, '0', verdict(total.lookupsDropped === 0)],
    ['chat log rows dropped', `${total.chatLogDropped}`, '', ''],
    ['decisions ending in error', `${total.decisionErrors}`, '0', verdict(total.decisionErrors === 0)],
    ['CPU: Chorus processes (s)', fmt(total.cpuSec, 2), '', ''],
    ['CPU: PostgreSQL backends (s)', result.postgresCpuSec === null ? '-' : fmt(result.postgresCpuSec, 2), '', ''],
    [
      'CPU per learned pair: Chorus / PostgreSQL (ms)',
      `${fmt(f.cpuMsPerPair, 3)} / ${fmt(f.postgresCpuMsPerPair, 3)}`,
      '',
      '',
    ],
    ['event-loop delay max, worst process (ms)', fmt(total.eventLoopMaxMs, 1), '', ''],
    ['log lines: error / warn', `${total.errorLines} / ${total.warnLines}`, '0 / -', verdict(total.errorLines === 0)],
  ];
  const parts = [
    `${result.engine} × ${result.processes} process${result.processes === 1 ? '' : 'es'}, ` +
      `${result.messages} messages, ${result.framesPerProcess} frames per process`,
    formatTable(['measure', 'ours', 'target / ratio', ''], rows),
  ];
  if (result.processes > 1) {
    parts.push(
      formatTable(
        ['process', 'decisions', 'dec p99 ms', 'learned', 'lag p99 ms', 'skipped', 'CPU s', 'loop max ms'],
        result.perProcess.map((figures, index) => processRow(`${index + 1}`, figures)),
      ),
    );
  }
  for (const [message, n] of result.logMessages) parts.push(`log (warn or worse) ×${n}: ${message}`);
  if (!result.drained) parts.push('the processes did not decide and learn everything within the drain timeout');
  return parts.join('\n\n');
}

export function fleetResultLine(result: FleetRunResult): string {
  const f = fleetFigures(result);
  return (
    `RESULT bench:repeater engine=${result.engine} processes=${result.processes} rate=${result.rateOffered} ` +
    `achieved=${fmt(result.rateAchieved)} pairs_learned=${f.learned} skipped=${result.total.skippedPressure} ` +
    `decision_p99_ms=${fmt(f.decisionP99Ms, 3)} learn_lag_p50_ms=${fmt(f.learnLagP50Ms, 1)} ` +
    `learn_lag_p99_ms=${fmt(f.learnLagP99Ms, 1)} cpu_ms_per_pair=${fmt(f.cpuMsPerPair, 3)} ` +
    `pg_cpu_ms_per_pair=${fmt(f.postgresCpuMsPerPair, 3)} drained=${result.drained ? 'yes' : 'no'} ` +
    `sustained=${sustained(result) ? 'yes' : 'no'}`
  );
}
