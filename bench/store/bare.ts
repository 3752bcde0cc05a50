import type { LearnInput } from '../../src/domain/corpus.ts';
import type { BoundQuery } from '../../src/sql/program.ts';

/**
 * The bare driver doing the same work as the store: the same SQL text (compiled from the store's
 * own templates) with the same parameters, rows fetched and nothing built from them.
 */
export interface BareDriver {
  /** The two reply-snapshot statements; resolves to the number of rows fetched (0 = no context). */
  replyLookup(keywords: string): number | Promise<number>;
  /** The existence statement; resolves to the number of rows fetched. */
  exists(keywords: string): number | Promise<number>;
  /** The statements of learn_answer in one transaction; resolves to whether the context was new. */
  learn(input: LearnInput): boolean | Promise<boolean>;
  /** delete_expired as one DELETE statement, rolled back; how long it held the driver. */
  singleDelete(expiration: number, threshold: number): Promise<{ rows: number; ms: number }>;
  /** find_for_cleanup's rows as three whole-table statements: candidates, their answers, their messages. */
  cleanupScan(triggerThreshold: number, expiration: number): Promise<CleanupRows & { ms: number }>;
  rowCounts(): Promise<{ contexts: number; answers: number; messages: number }>;
  close(): Promise<void>;
}

export interface CleanupRows {
  contexts: number;
  answers: number;
  messages: number;
}

/** The candidates of find_for_cleanup, and the statements that fetch them with their children. */
const CANDIDATE = 'c.trigger_count > $1 OR c.clear_time < $2';
export const CLEANUP_SCANS = {
  contexts: `SELECT c.id, c.keywords, c.time, c.trigger_count, c.clear_time FROM context c WHERE ${CANDIDATE} ORDER BY c.id`,
  answers: `SELECT a.id, a.context_id, a.keywords, a.group_id, a.count, a.time FROM context_answer a
    JOIN context c ON c.id = a.context_id WHERE ${CANDIDATE} ORDER BY a.id`,
  messages: `SELECT m.answer_id, m.message FROM context_answer_message m JOIN context_answer a ON a.id = m.answer_id
    JOIN context c ON c.id = a.context_id WHERE ${CANDIDATE} ORDER BY m.id`,
} as const;

type Slot<P> = { readonly name: keyof P } | { readonly value: unknown };

export interface CompiledStatement<P> {
  readonly sql: string;
  bind(params: P): unknown[];
}

/**
 * The SQL and parameter order of one of the store's templates. `example` must give every
 * parameter a distinct value: each compiled parameter is matched back to its name by identity,
 * and anything unmatched is a constant of the statement.
 */
export function compileTemplate<P extends object>(
  template: (params: P) => BoundQuery,
  example: P,
): CompiledStatement<P> {
  const bound = template(example);
  const entries = Object.entries(example) as [keyof P, unknown][];
  const slots: Slot<P>[] = bound.parameters.map((value) => {
    const named = entries.find(([, exampleValue]) => Object.is(exampleValue, value));
    return named ? { name: named[0] } : { value };
  });
  return {
    sql: bound.sql,
    bind: (params) => slots.map((slot) => ('name' in slot ? params[slot.name] : slot.value)),
  };
}
