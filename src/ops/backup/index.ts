export { BACKUP_JOB, BackupService, type BackupServiceOptions, type RestorePreview } from './backup-service.ts';
export { BackupPathError, type BackupRun } from './folder.ts';
export { applyPendingRestore, lastRestore, type RestoreResult } from './restore.ts';
