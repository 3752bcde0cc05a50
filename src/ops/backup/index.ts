export { BACKUP_JOB, BackupService, type BackupServiceOptions, type RestorePreview } from './backup-service.ts';
export { BackupBusyError, BackupChangedError, BackupPathError, type BackupRun } from './folder.ts';
export { applyPendingRestore, lastRestore, replaceSqliteFile, type RestoreResult } from './restore.ts';
export { findPgTools, PgToolError, replacePostgresTables, type PgTools } from './pg-tools.ts';
