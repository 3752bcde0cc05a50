import type { LocalStore } from '../../src/store/open-store.ts';
import { withStallMonitor } from '../lib/stall.ts';
import type { BareDriver } from './bare.ts';

export interface BulkFigure {
  /** Worst event-loop delay while it ran (ms). */
  maxStallMs: number;
  elapsedMs: number;
  /** Context rows touched. */
  contexts: number;
  /** Dependent rows touched: answers and messages (deleted by cascade, or loaded). */
  answers: number;
  messages: number;
}

export interface BulkComparison {
  deleteOurs: BulkFigure;
  deleteBare: BulkFigure;
  cleanupOurs: BulkFigure;
  cleanupBare: BulkFigure;
  /** The worst event-loop delay over an idle period, the noise floor of the stall figures. */
  idleStallMs: number;
}

const IDLE_PROBE_MS = 300;

export interface CleanupParameters {
  expiration: number;
  deleteThreshold: number;
  triggerThreshold: number;
}

/**
 * The daily job's two bulk reads and writes over the whole corpus, in its order: delete_expired,
 * then find_for_cleanup (iterated page by page, nothing kept). The bare figures are the same work
 * in whole-table statements: one DELETE (rolled back, so the store's run sees the same rows), and
 * three scans for the candidates, their answers and their messages.
 */
export async function bulkWork(store: LocalStore, bare: BareDriver, p: CleanupParameters): Promise<BulkComparison> {
  // What this machine's event loop shows with nothing to do (other processes share the cores).
  const idle = await withStallMonitor(() => new Promise((resolve) => setTimeout(resolve, IDLE_PROBE_MS)));
  const before = await bare.rowCounts();
  const bareDelete = await withStallMonitor(() => bare.singleDelete(p.expiration, p.deleteThreshold));
  const afterBare = await bare.rowCounts();
  if (afterBare.contexts !== before.contexts) throw new Error('the bare DELETE was not rolled back');

  const oursDelete = await withStallMonitor(() => store.corpus.deleteExpired(p.expiration, p.deleteThreshold));
  const after = await bare.rowCounts();
  const cascaded = { answers: before.answers - after.answers, messages: before.messages - after.messages };

  const cleanup = await withStallMonitor(async () => {
    const seen = { contexts: 0, answers: 0, messages: 0 };
    for await (const page of store.corpus.iterateForCleanup(p.triggerThreshold, p.expiration)) {
      seen.contexts += page.length;
      for (const context of page) {
        seen.answers += context.answers.length;
        for (const answer of context.answers) seen.messages += answer.messages.length;
      }
    }
    return seen;
  });
  const bareScan = await withStallMonitor(() => bare.cleanupScan(p.triggerThreshold, p.expiration));

  return {
    deleteBare: {
      maxStallMs: bareDelete.maxStallMs,
      elapsedMs: bareDelete.result.ms,
      contexts: bareDelete.result.rows,
      ...cascaded,
    },
    deleteOurs: {
      maxStallMs: oursDelete.maxStallMs,
      elapsedMs: oursDelete.elapsedMs,
      contexts: oursDelete.result,
      ...cascaded,
    },
    cleanupOurs: { maxStallMs: cleanup.maxStallMs, elapsedMs: cleanup.elapsedMs, ...cleanup.result },
    cleanupBare: {
      maxStallMs: bareScan.maxStallMs,
      elapsedMs: bareScan.result.ms,
      contexts: bareScan.result.contexts,
      answers: bareScan.result.answers,
      messages: bareScan.result.messages,
    },
    idleStallMs: idle.maxStallMs,
  };
}
