/**
 * `chorus corpus import`: a portable corpus file merged into the corpus (the import rules of
 * src/domain/corpus-import.ts: idempotent, so an import cut short is simply run again). Every
 * line is checked before its batch is written; a bad line stops the import naming the line and
 * field, after writing every context before it, and the error says how many that were
 * (ImportStoppedError). What live learning would refuse is left out and counted, and a line past
 * the cap is dropped as it arrives (docs/rules.md#import-limits). `dryRun` reads and merges
 * without writing.
 */
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { Context } from '../../domain/corpus.ts';
import {
  limitImported,
  mergeImported,
  noSkips,
  type ImportDelta,
  type ImportSkips,
} from '../../domain/corpus-import.ts';
import { AdaptiveChunk, yieldToEventLoop } from '../../common/adaptive-chunk.ts';
import { CORPUS_FILE_LINE_MAX_BYTES, CORPUS_TEXT_LIMITS } from '../../common/limits.ts';
import { errorMessage } from '../../common/errors.ts';
import { cappedLines } from './capped-lines.ts';
import { CorpusFileError, parseContextLine, parseHeader, type CorpusFileHeader } from './format.ts';

export interface CorpusTarget {
  findByKeywords(keywords: string): Promise<Context | null>;
  importContexts(contexts: readonly Context[]): Promise<ImportDelta[]>;
}

export interface ImportOptions {
  dryRun?: boolean;
  onProgress?: (done: number, total: number) => void;
  /** Bytes a line may have (tests lower it); CORPUS_FILE_LINE_MAX_BYTES by default. */
  lineMaxBytes?: number;
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
  /** Left out (docs/rules.md#import-limits): lines past the line cap, and what live learning refuses. */
  skipped_lines_too_long: number;
  skipped_contexts_too_long: number;
  skipped_answers_too_long: number;
  skipped_messages_too_long: number;
  skipped_bans_too_long: number;
  seconds: number;
}

/**
 * An import that stopped part way: `cause` says why (a CorpusFileError names the line), `report`
 * what was written before it, which stays (a second run of a fixed file changes nothing twice).
 */
export class ImportStoppedError extends Error {
  override readonly name = 'ImportStoppedError';
  constructor(
    override readonly cause: unknown,
    readonly report: ImportReport,
  ) {
    const written = report.contexts_added + report.contexts_merged + report.contexts_unchanged;
    super(
      `${errorMessage(cause)}; ` +
        (report.dry_run
          ? 'dry run, nothing was written'
          : `${written} contexts before it were imported and are kept (${report.contexts_added} added, ` +
            `${report.contexts_merged} merged); importing the file again after fixing it is safe`),
    );
  }
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
  const handle = await openCorpusFile(path);
  // Through pipeline: a read error (the file vanished, a disk error) destroys the gunzip stream
  // with it, so it ends the iteration below as a thrown error, not as an 'error' event nobody
  // listens to (which would end the process).
  const input: Readable = pipeline(handle.createReadStream(), createGunzip(), () => undefined);
  const lineMax = options.lineMaxBytes ?? CORPUS_FILE_LINE_MAX_BYTES;
  let lineNumber = 0;
  let header: CorpusFileHeader | undefined;
  const skippedLines = { count: 0 };
  try {
    const lines = cappedLines(input, lineMax)[Symbol.asyncIterator]();
    const first = await lines.next();
    if (first.done === true) throw new CorpusFileError(`${path}: empty file`, 'empty');
    lineNumber = 1;
    if (first.value.text === null)
      throw new CorpusFileError(`line 1: longer than ${lineMax} bytes`, 'header_too_long', { max_bytes: lineMax });
    header = parseHeader(first.value.text);
    async function* contexts(): AsyncGenerator<Context> {
      for (let next = await lines.next(); next.done !== true; next = await lines.next()) {
        lineNumber = next.value.number;
        if (next.value.text === null) skippedLines.count++;
        else if (next.value.text.trim() !== '') yield parseContextLine(next.value.text, lineNumber);
      }
    }
    const report = await importContextStream(target, contexts(), header, options);
    report.skipped_lines_too_long = skippedLines.count;
    return report;
  } catch (error) {
    const stopped = error instanceof ImportStoppedError ? error : null;
    const cause = readError(stopped?.cause ?? error, path, lineNumber);
    if (stopped) {
      stopped.report.skipped_lines_too_long = skippedLines.count;
      throw new ImportStoppedError(cause, stopped.report);
    }
    throw cause;
  } finally {
    input.destroy();
    await handle.close().catch(() => undefined);
  }
}

/** Opens a corpus file for reading; a clear CorpusFileError when it is missing or not a file. */
async function openCorpusFile(path: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CorpusFileError(`${path}: no such file`, 'missing');
    if (code === 'EACCES' || code === 'EPERM')
      throw new CorpusFileError(`${path}: not readable (permission denied)`, 'unreadable');
    throw new CorpusFileError(`${path}: cannot be opened (${code ?? errorMessage(error)})`, 'unreadable');
  }
  const found = await handle.stat();
  if (!found.isFile()) {
    await handle.close();
    throw new CorpusFileError(
      `${path}: ${found.isDirectory() ? 'a folder' : 'not a regular file'}; give a corpus file (.jsonl.gz)`,
      found.isDirectory() ? 'is_folder' : 'not_a_file',
    );
  }
  return handle;
}

/** A reading error as a CorpusFileError naming where it happened; other errors unchanged. */
function readError(error: unknown, path: string, lineNumber: number): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR') {
    return new CorpusFileError(`${path}: not a gzip file, or cut short (after line ${lineNumber})`, 'not_gzip', {
      line: lineNumber,
    });
  }
  if (typeof code === 'string' && code.startsWith('E') && !(error instanceof CorpusFileError)) {
    return new CorpusFileError(`${path}: reading failed after line ${lineNumber} (${code})`, 'read_failed', {
      line: lineNumber,
      code,
    });
  }
  return error;
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
  const skipped = noSkips();
  const batchSize = new AdaptiveChunk(8, 1, 2000, BATCH_TARGET_MS);
  let batch: Context[] = [];
  let storeFailed = false;
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
    let deltas: ImportDelta[];
    try {
      deltas = options.dryRun === true ? await dryRun(target, writing) : await target.importContexts(writing);
    } catch (error) {
      storeFailed = true;
      throw error;
    }
    batchSize.record(performance.now() - begun);
    writing.forEach((part, index) => {
      const delta = deltas[index];
      if (delta) count(report, delta, continuations.has(part));
    });
    options.onProgress?.(report.contexts_read, Math.max(report.header.contexts, report.contexts_read));
    await yieldToEventLoop();
  };
  const finish = (): ImportReport => {
    addSkips(report, skipped);
    report.seconds = (performance.now() - started) / 1000;
    return report;
  };
  try {
    for await (const read of contexts) {
      report.contexts_read++;
      const context = limitImported(read, CORPUS_TEXT_LIMITS, skipped);
      if (context === null) continue;
      for (const part of partsOf(context)) {
        batch.push(part);
        if (batch.length >= batchSize.size) await flush();
      }
    }
    await flush();
  } catch (error) {
    // A bad line (or a read error): what came before it is written, so that the report's "kept"
    // is everything before the line. A store that failed is not asked again.
    if (!storeFailed) await flush().catch(() => undefined);
    throw new ImportStoppedError(error, finish());
  }
  return finish();
}

function addSkips(report: ImportReport, skipped: ImportSkips): void {
  report.skipped_contexts_too_long = skipped.contexts;
  report.skipped_answers_too_long = skipped.answers;
  report.skipped_messages_too_long = skipped.messages;
  report.skipped_bans_too_long = skipped.bans;
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
    skipped_lines_too_long: 0,
    skipped_contexts_too_long: 0,
    skipped_answers_too_long: 0,
    skipped_messages_too_long: 0,
    skipped_bans_too_long: 0,
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
