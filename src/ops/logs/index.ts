export { FileFollower, isFile, tailFile, type FollowOptions, type TailOptions } from './file-tail.ts';
export { newLines } from './line-diff.ts';
export type { LineBatch, LineSource, SourcedLine } from './line-source.ts';
export {
  formatLogEntry,
  LOG_LEVEL_NAMES,
  LOG_LEVELS,
  LOG_RING_DEFAULTS,
  LogRing,
  type LogEntry,
  type LogFilter,
  type LogLevelName,
  type LogRingOptions,
} from './log-ring.ts';
