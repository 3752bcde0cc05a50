/**
 * What the corpus file and restore jobs say, as codes with parameters (JobText) that the console
 * words in Chinese and English (web/src/job-text.ts); the English `message` beside each is for
 * the logs and the command line.
 */
import { JobFailure, type JobText } from '../jobs/index.ts';
import { CorpusFileError } from './format.ts';
import { ImportStoppedError, type ImportReport } from './import.ts';

export const progressText = (done: number, total: number): JobText => ({
  code: 'corpus_file.progress',
  params: { done, total },
});

/**
 * A failed import as the job's failure: the problem as a code (`corpus_file.<code>`, with the
 * line), and, when it stopped part way, how much was kept (`kept`, `added`, `merged`) with the
 * partial report as the job's result. Anything else (a bug) is thrown on unchanged.
 */
export function importFailure(error: unknown, figuresOf: (report: ImportReport) => Record<string, unknown>): unknown {
  if (error instanceof ImportStoppedError) {
    const { report, cause } = error;
    const problem =
      cause instanceof CorpusFileError
        ? { code: `corpus_file.${cause.code}`, params: cause.params }
        : { code: 'corpus_file.store_failed', params: {} };
    return new JobFailure(error.message, figuresOf(report), {
      code: problem.code,
      params: {
        ...problem.params,
        kept: report.contexts_added + report.contexts_merged + report.contexts_unchanged,
        added: report.contexts_added,
        merged: report.contexts_merged,
        dry_run: report.dry_run ? 1 : 0,
      },
    });
  }
  if (error instanceof CorpusFileError)
    return new JobFailure(error.message, null, { code: `corpus_file.${error.code}`, params: error.params });
  return error;
}
