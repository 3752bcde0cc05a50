/**
 * A source of log lines read in steps, for live streams: each `read` returns what is new since the
 * previous one. A line may carry a numeric id (a byte offset, a sequence number) from which a
 * reconnecting client resumes; the source keeps its own cursor, so a stream that waits for a slow
 * client simply reads later and nothing piles up in memory.
 */
export interface SourcedLine {
  /** Resume point after this line; absent when the source cannot resume (a remote poll). */
  readonly id?: number;
  readonly text: string;
}

export type LineBatch =
  | {
      readonly lines: readonly SourcedLine[];
      /** More is ready now: read again without waiting for the next poll. */
      readonly more: boolean;
    }
  | {
      /** The source failed for good; the stream reports it and ends. */
      readonly error: string;
    };

export interface LineSource {
  read(): Promise<LineBatch>;
}
