import type { Context, LearnInput } from '../domain/corpus.ts';

export type RemoteSourceName = 'fed' | 'community';

/**
 * A read-only remote corpus (the community hub; a federated source later). Failures are thrown;
 * the composite turns them into skipped sources, never into a failed reply.
 */
export interface RemoteCorpusSource {
  findByKeywords(keywords: string): Promise<Context | null>;
}

/** Where the mirror worker sends de-identified learning (the community contribute endpoint). */
export interface MirrorTarget {
  insert(context: Context): Promise<void>;
  upsertAnswer(input: LearnInput): Promise<void>;
}

/** Schedules a background pull of a key after a local miss; never blocks, may decline. */
export interface PrefetchScheduler {
  schedule(keywords: string): void;
}
