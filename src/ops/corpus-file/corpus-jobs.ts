/**
 * The portable corpus file from the console (docs/guide/backups.md):
 * an export or an import runs as a job of the database's job kind (one database job at a time:
 * a backup, a restore, retention, an export or an import), followed at the backup job routes.
 * Exports are written to `<data>/corpus-files/` and downloaded from there; an uploaded file is
 * saved there first (bounded), imported, and removed.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ensurePrivateDir } from '../../config/index.ts';
import type { Context } from '../../domain/corpus.ts';
import { JobBusyError, type Job, type JobContext, type JobOutcome, type JobRegistry } from '../jobs/index.ts';
import { exportCorpus, type CorpusSource } from './export.ts';
import { importCorpus, type CorpusTarget, type ImportReport } from './import.ts';
import { importFailure, progressText } from './job-texts.ts';

/** An upload larger than this is refused while it arrives. */
export const UPLOAD_MAX_BYTES = 2 * 1024 ** 3;
/** Exports kept in the folder; older ones are removed when a new one is written. */
const EXPORTS_KEPT = 5;
const NAME = /^chorus-corpus-[0-9]{8}-[0-9]{6}(?:-anon)?-[0-9a-f]{6}\.jsonl\.gz$/;

export class CorpusFileRequestError extends Error {
  override readonly name = 'CorpusFileRequestError';
  constructor(
    message: string,
    readonly status: 400 | 404 | 413,
  ) {
    super(message);
  }
}

export interface CorpusJobsOptions {
  /** `<data>/corpus-files` */
  folder: string;
  /** The database job kind (backups and retention share it). */
  kind: string;
  jobs: JobRegistry;
  corpus: CorpusSource & CorpusTarget;
  /** Told the keywords of every context an import wrote (the bot drops its caches for them). */
  imported?: (keywords: readonly string[]) => void;
  version: string;
  /** Unix milliseconds. */
  now: () => number;
}

export class CorpusJobs {
  readonly #options: CorpusJobsOptions;

  constructor(options: CorpusJobsOptions) {
    this.#options = options;
  }

  /** Starts an export job; JobBusyError while a database job runs. */
  startExport(request: { groups?: readonly number[]; anonymise?: boolean }): Job {
    const { folder, jobs, kind } = this.#options;
    return jobs.start(kind, 'corpus-export', async (context) => {
      await ensurePrivateDir(folder);
      const name = this.#newName(request.anonymise === true);
      const report = await exportCorpus(this.#options.corpus, join(folder, name), {
        ...(request.groups ? { groups: request.groups } : {}),
        anonymise: request.anonymise === true,
        generator: `chorus ${this.#options.version}`,
        nowSec: Math.floor(this.#options.now() / 1000),
        onProgress: (done, total) => reportProgress(context, done, total),
      });
      await this.#prune(name);
      const { path: _path, ...figures } = report;
      return {
        result: { name, ...figures },
        message: `exported ${report.contexts} contexts`,
        text: { code: 'corpus_file.exported', params: { contexts: report.contexts } },
      };
    });
  }

  /** The file of an export, for download. */
  async file(name: string): Promise<{ path: string; bytes: number }> {
    const path = this.#pathOf(name);
    const found = await stat(path).catch(() => null);
    if (!found?.isFile()) throw new CorpusFileRequestError(`no export called ${name}`, 404);
    return { path, bytes: found.size };
  }

  /**
   * Saves an uploaded corpus file (at most UPLOAD_MAX_BYTES) and starts its import as a job; the
   * file is removed when the job ends. JobBusyError while a database job runs.
   */
  async startImport(upload: Readable, dryRun: boolean): Promise<Job> {
    const { folder, jobs, kind } = this.#options;
    const busy = jobs.active(kind);
    if (busy) {
      // Refused before the body is read; the rest of it is drained and dropped.
      upload.resume();
      throw new JobBusyError(busy);
    }
    await ensurePrivateDir(folder);
    const path = join(folder, `.upload-${randomBytes(8).toString('hex')}.jsonl.gz`);
    let bytes = 0;
    try {
      await pipeline(
        upload,
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            bytes += chunk.length;
            if (bytes > UPLOAD_MAX_BYTES)
              throw new CorpusFileRequestError(`body: larger than ${UPLOAD_MAX_BYTES} bytes`, 413);
            yield chunk;
          }
        },
        createWriteStream(path, { mode: 0o600 }),
      );
      if (bytes === 0) throw new CorpusFileRequestError('body: empty; send the corpus file', 400);
      return jobs.start(kind, dryRun ? 'corpus-import-dry-run' : 'corpus-import', async (context) => {
        try {
          return await runImport(this.#target(), path, dryRun, context, (figures) => ({ ...figures, bytes }));
        } finally {
          await rm(path, { force: true });
        }
      });
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
  }

  /** The corpus, telling `imported` what each batch wrote. */
  #target(): CorpusTarget {
    const { corpus, imported } = this.#options;
    return {
      findByKeywords: (keywords) => corpus.findByKeywords(keywords),
      importContexts: async (contexts: readonly Context[]) => {
        const deltas = await corpus.importContexts(contexts);
        imported?.(contexts.map((context) => context.keywords));
        return deltas;
      },
    };
  }

  #newName(anonymised: boolean): string {
    const stamp = new Date(this.#options.now()).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
    return `chorus-corpus-${stamp}${anonymised ? '-anon' : ''}-${randomBytes(3).toString('hex')}.jsonl.gz`;
  }

  #pathOf(name: string): string {
    if (!NAME.test(name)) throw new CorpusFileRequestError(`name: "${name.slice(0, 64)}" is not an export name`, 400);
    const root = resolve(this.#options.folder);
    const path = resolve(root, name);
    if (!path.startsWith(root + sep)) throw new CorpusFileRequestError('name: outside the export folder', 400);
    return path;
  }

  async #prune(keep: string): Promise<void> {
    const names = (await readdir(this.#options.folder)).filter((name) => NAME.test(name) && name !== keep);
    const dated = await Promise.all(
      names.map(async (name) => ({ name, at: (await stat(join(this.#options.folder, name))).mtimeMs })),
    );
    dated.sort((a, b) => b.at - a.at);
    for (const { name } of dated.slice(EXPORTS_KEPT - 1)) await rm(join(this.#options.folder, name), { force: true });
  }
}

const reportProgress = (context: JobContext, done: number, total: number): void =>
  context.progress(
    Math.round((done / Math.max(1, total)) * 100),
    `${done}/${total} contexts`,
    progressText(done, total),
  );

/**
 * A corpus file imported as the work of a job: progress as it goes, the report as the result; a
 * failure names the line and says how much was kept (JobFailure with the partial report).
 */
export async function runImport(
  target: CorpusTarget,
  path: string,
  dryRun: boolean,
  context: JobContext,
  shape: (figures: Record<string, unknown>) => Record<string, unknown> = (figures) => figures,
): Promise<JobOutcome> {
  const figuresOf = (report: ImportReport): Record<string, unknown> => {
    const { header, ...figures } = report;
    return shape({ ...figures, generator: header.generator, exported_at: header.exported_at });
  };
  let report: ImportReport;
  try {
    report = await importCorpus(target, path, {
      dryRun,
      onProgress: (done, total) => reportProgress(context, done, total),
    });
  } catch (error) {
    throw importFailure(error, figuresOf);
  }
  return {
    result: figuresOf(report),
    message: `${dryRun ? 'dry run: ' : ''}${report.contexts_read} contexts read, ${report.contexts_added} added`,
    text: {
      code: dryRun ? 'corpus_file.dry_run_done' : 'corpus_file.imported',
      params: { read: report.contexts_read, added: report.contexts_added },
    },
  };
}
