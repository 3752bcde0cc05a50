export { exportCorpus, type CorpusSource, type ExportOptions, type ExportReport } from './export.ts';
export { CORPUS_FILE_FORMAT, CORPUS_FILE_VERSION, CorpusFileError, type CorpusFileHeader } from './format.ts';
export { importCorpus, type CorpusTarget, type ImportOptions, type ImportReport } from './import.ts';
export { importContextStream, ImportStoppedError } from './import.ts';
export {
  importLearningChat,
  importPallasMongo,
  importPallasPg,
  type BlacklistTarget,
  type ForeignImportReport,
} from './importers.ts';
export {
  CorpusFileRequestError,
  CorpusJobs,
  runImport,
  UPLOAD_MAX_BYTES,
  type CorpusJobsOptions,
} from './corpus-jobs.ts';
