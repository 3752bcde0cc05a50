/**
 * `chorus corpus import`: a portable corpus file merged into the corpus (the import rules of
 * src/domain/corpus-import.ts: idempotent, so an import cut short is simply run again). Every
 * line is checked before its batch is written; a bad line stops the import naming the line and
 * field, after the batches before it. `dryRun` reads and merges without writing.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { Context } from '../../domain/corpus.ts';
import { mergeImported, type ImportDelta } from '../../domain/corpus-import.ts';
import { AdaptiveChunk, yieldToEventLoop } from '../../common/adaptive-chunk.ts';
import { CorpusFileError, parseContextLine, parseHeader, type CorpusFileHeader } from './format.ts';

export interface CorpusTarget {
  findByKeywords(keywords: string): Promise<Context | null>;
  importContexts(contexts: readonly Context[]): Promise<ImportDelta[]>;
}

export interface ImportOptions {
  dryRun?: boolean;
  onProgress?: (done: number, total: number) => void;
}

export interface ImportReport {
  header: CorpusFileHeader;
  dry_run: boolean;
  contexts_read: number;
  contexts_added: number;
  contexts_merged: number;
  contexts_unchanged: number;
  answers_added: number;
  answers_updated: number;
  messages_added: number;
  bans_added: number;
  seconds: number;
}

/** A batch is written in one unit of work; its size adapts to keep each near this many ms. */
const BATCH_TARGET_MS = 10;
/** Messages written per unit of work at most for one context (see splitLargeContext). */
const PART_MAX_MESSAGES = 1000;

export async function importCorpus(
  target: CorpusTarget,
  path: string,
  options: ImportOptions = {},
): Promise<ImportReport> {
  const input = createReadStream(path).pipe(createGunzip());
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let lineNumber = 0;
  try {
    const iterator = lines[Symbol.asyncIterator]();
    const first = await iterator.next();
    if (first.done === true) throw new CorpusFileError(`${path}: empty file`);
    lineNumber = 1;
    const header = parseHeader(first.value);
    async function* contexts(): AsyncGenerator<Context> {
      for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) {
        lineNumber++;
        if (next.value.trim() !== '') yield parseContextLine(next.value, lineNumber);
      }
    }
    return await importContextStream(target, contexts(), header, options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR') {
      throw new CorpusFileError(`${path}: not a gzip file, or cut short (after line ${lineNumber})`);
    }
    throw error;
  } finally {
    lines.close();
    input.destroy();
  }
}

/**
 * Any stream of contexts (a corpus file, or an importer reading another bot's store) merged in
 * adaptive batches; `header` describes where they come from.
 */
export async function importContextStream(
  target: CorpusTarget,
  contexts: AsyncIterable<Context>,
  header: CorpusFileHeader,
  options: ImportOptions = {},
): Promise<ImportReport> {
  const started = performance.now();
  const report = emptyReport(header, options.dryRun === true);
  const batchSize = new AdaptiveChunk(8, 1, 2000, BATCH_TARGET_MS);
  let batch: Context[] = [];
  // The second and later parts of a context split by partsOf: their answers count, not they.
  const continuations = new WeakSet<Context>();
  const partsOf = (context: Context): Context[] => {
    const parts = splitLargeContext(context);
    for (const part of parts.slice(1)) continuations.add(part);
    return parts;
  };
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const writing = batch;
    batch = [];
    const begun = performance.now();
    const deltas = options.dryRun === true ? await dryRun(target, writing) : await target.importContexts(writing);
    batchSize.record(performance.now() - begun);
    writing.forEach((part, index) => {
      const delta = deltas[index];
      if (delta) count(report, delta, continuations.has(part));
    });
    options.onProgress?.(report.contexts_read, Math.max(report.header.contexts, report.contexts_read));
    await yieldToEventLoop();
  };
  for await (const context of contexts) {
    report.contexts_read++;
    for (const part of partsOf(context)) {
      batch.push(part);
      if (batch.length >= batchSize.size) await flush();
    }
  }
  await flush();
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

async function dryRun(target: CorpusTarget, contexts: readonly Context[]): Promise<ImportDelta[]> {
  const deltas: ImportDelta[] = [];
  for (const context of contexts)
    deltas.push(mergeImported(await target.findByKeywords(context.keywords), context).delta);
  return deltas;
}

function emptyReport(header: CorpusFileHeader, dryRunOnly: boolean): ImportReport {
  return {
    header,
    dry_run: dryRunOnly,
    contexts_read: 0,
    contexts_added: 0,
    contexts_merged: 0,
    contexts_unchanged: 0,
    answers_added: 0,
    answers_updated: 0,
    messages_added: 0,
    bans_added: 0,
    seconds: 0,
  };
}

/**
 * A context with very many messages (a hot key can hold hundreds of answers with hundreds of
 * messages each) is written as several parts, each merged into the one before, so that no single
 * unit of work holds SQLite's event loop for long. Merging is idempotent, so the result is the
 * same as writing it whole.
 */
export function splitLargeContext(context: Context): Context[] {
  const parts: Context[] = [];
  let answers: Context['answers'] = [];
  let messages = 0;
  for (const answer of context.answers) {
    if (answers.length > 0 && messages + answer.messages.length > PART_MAX_MESSAGES) {
      parts.push({ ...context, answers, bans: parts.length === 0 ? context.bans : [] });
      answers = [];
      messages = 0;
    }
    answers.push(answer);
    messages += answer.messages.length;
  }
  parts.push({ ...context, answers, bans: parts.length === 0 ? context.bans : [] });
  return parts;
}

function count(report: ImportReport, delta: ImportDelta, continuation: boolean): void {
  if (continuation) {
    // Counted with its first part.
  } else if (delta.created) report.contexts_added++;
  else if (delta.answersAdded + delta.answersUpdated + delta.bansAdded > 0) report.contexts_merged++;
  else report.contexts_unchanged++;
  report.answers_added += delta.answersAdded;
  report.answers_updated += delta.answersUpdated;
  report.messages_added += delta.messagesAdded;
  report.bans_added += delta.bansAdded;
}
