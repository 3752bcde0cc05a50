export { FileFollower, isFile, tailFile, type FollowOptions, type TailOptions } from './file-tail.ts';
export { newLines } from './line-diff.ts';
export type { LineBatch, LineSource, SourcedLine } from './line-source.ts';
