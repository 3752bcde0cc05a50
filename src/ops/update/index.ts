export { FeedError, latestRelease, onTrack, readFeed, type Release, type UpdateTrack } from './feed.ts';
export { DEFAULT_UPDATE_TIMING, UPDATE_JOB, type UpdateTiming } from './limits.ts';
export { compareVersions, parseVersion, type SemVer } from './semver.ts';
export type { StepHook } from './steps.ts';
export type { MigrationApplied, MigrationCheck, MigrationItem } from './config-migration.ts';
export type { GitHead, GitMode, GitStrategy, HistoryItem } from './git-source.ts';
export {
  UpdateRefused,
  type GitApply,
  type HistoryPage,
  UpdateService,
  type BotCheck,
  type UpdateServiceOptions,
  type UpdateSettings,
  type WebCheck,
} from './update-service.ts';
export { CURRENT, PREVIOUS, VERSIONS, VersionStore } from './version-store.ts';
