/**
 * `chorus corpus export`: every context (or those with answers in some groups) to a portable
 * corpus file, written to a temporary file and renamed into place, so a reader never sees half a
 * file. The store pages the corpus in short steps, so a running bot keeps answering meanwhile.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Context } from '../../domain/corpus.ts';
import { anonymiseContext } from '../../domain/corpus-import.ts';
import { CORPUS_FILE_LINE_MAX_BYTES } from '../../common/limits.ts';
import { CORPUS_FILE_FORMAT, CORPUS_FILE_VERSION, contextLine, type CorpusFileHeader } from './format.ts';

export interface CorpusSource {
  iterateAllContexts(): AsyncIterable<Context[]>;
  countContexts(): Promise<number>;
}

export interface ExportOptions {
  /** Only answers (and bans) of these groups; a context left without answers is not written. */
  groups?: readonly number[];
  /** Every group id becomes 0 (answers that become the same are merged). */
  anonymise?: boolean;
  generator: string;
  nowSec: number;
  onProgress?: (done: number, total: number) => void;
  /** The import's line cap (tests lower it); CORPUS_FILE_LINE_MAX_BYTES by default. */
  lineMaxBytes?: number;
}

export interface ExportReport {
  path: string;
  contexts: number;
  answers: number;
  messages: number;
  bans: number;
  bytes: number;
  seconds: number;
}

export async function exportCorpus(source: CorpusSource, path: string, options: ExportOptions): Promise<ExportReport> {
  const started = performance.now();
  const total = await source.countContexts();
  const groups = options.groups && options.groups.length > 0 ? new Set(options.groups) : null;
  const header: CorpusFileHeader = {
    format: CORPUS_FILE_FORMAT,
    version: CORPUS_FILE_VERSION,
    exported_at: options.nowSec,
    contexts: total,
    anonymised: options.anonymise === true,
    groups: groups ? [...groups] : null,
    generator: options.generator,
  };
  const report: ExportReport = { path, contexts: 0, answers: 0, messages: 0, bans: 0, bytes: 0, seconds: 0 };
  let scanned = 0;
  async function* lines(): AsyncGenerator<string> {
    yield `${JSON.stringify(header)}\n`;
    for await (const page of source.iterateAllContexts()) {
      let text = '';
      for (const stored of page) {
        scanned++;
        const context = shape(stored, groups, options.anonymise === true);
        if (context === null) continue;
        report.contexts++;
        report.answers += context.answers.length;
        report.bans += context.bans.length;
        for (const answer of context.answers) report.messages += answer.messages.length;
        for (const line of linesOf(context, options.lineMaxBytes ?? CORPUS_FILE_LINE_MAX_BYTES)) text += `${line}\n`;
      }
      options.onProgress?.(scanned, total);
      if (text !== '') yield text;
    }
  }
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const file = createWriteStream(temp, { mode: 0o600 });
  try {
    await pipeline(Readable.from(lines()), createGzip(), file);
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  report.bytes = file.bytesWritten;
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

function shape(context: Context, groups: ReadonlySet<number> | null, anonymise: boolean): Context | null {
  let result = context;
  if (groups) {
    const answers = context.answers.filter((answer) => groups.has(answer.groupId));
    if (answers.length === 0) return null;
    result = { ...context, answers, bans: context.bans.filter((ban) => groups.has(ban.groupId)) };
  }
  return anonymise ? anonymiseContext(result) : result;
}

/**
 * A context as lines an import reads whole (docs/rules.md#import-limits): one whose line would pass
 * the cap is written as several, its answers split between them (the bans with the first), which
 * the import merges back into one context, every answer with all its messages. Only a single
 * answer past the cap stays one line, which an import drops and counts.
 */
function linesOf(context: Context, maxBytes: number): string[] {
  const whole = contextLine(context);
  if (context.answers.length <= 1 || Buffer.byteLength(whole) <= maxBytes) return [whole];
  const half = Math.ceil(context.answers.length / 2);
  return [
    ...linesOf({ ...context, answers: context.answers.slice(0, half) }, maxBytes),
    ...linesOf({ ...context, answers: context.answers.slice(half), bans: [] }, maxBytes),
  ];
}
