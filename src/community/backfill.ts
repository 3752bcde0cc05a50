/**
 * History backfill (docs/rules.md#backfill):
 * local history is uploaded to the community a page at a time, in keywords order from a cursor
 * kept in `data/corpus-backfill.json`. Each context's answers go up as `upsert_answer` with group
 * 0, the first message whose normalised text is not empty, and append_on_existing; at most
 * MAX_PER_MINUTE contexts per fixed 60 s window; a context is skipped while the pool pressure is
 * at or above 0.78 or the mirror queue is full. The cursor moves past a context only once all its
 * answers were accepted, so a hub outage loses nothing: the next round starts where this one
 * stopped. An empty page after a non-empty cursor wraps to the start.
 */
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ensurePrivateDir, writeFileAtomic, type ConfigSnapshot } from '../config/index.ts';
import type { CorpusActivation } from '../corpus/activation.ts';
import type { RemoteBudget } from '../corpus/remote-budget.ts';
import type { Context, LearnInput } from '../domain/corpus.ts';
import {
  COMMUNITY_GROUP_ID,
  communityAnswer,
  communityLabel,
  withheldCounters,
  withheldKeywords,
} from '../domain/deidentify.ts';
import type { PoolPressure } from '../ports/pool-pressure.ts';
import type { Clock } from '../common/clock.ts';
import { POOL_PRESSURE } from '../common/limits.ts';
import { RateLimitedLog, type Log } from '../common/log.ts';
import type { ContextKey, KeywordsCursor } from '../store/corpus-store.ts';
import type { ContributeOutcome } from './community-client.ts';
import { isObject } from './http.ts';
import { errorMessage } from '../common/errors.ts';

export const BACKFILL_STATE_FILE = 'corpus-backfill.json';
export const BACKFILL_FIRST_DELAY_MS = 120_000;
export const BACKFILL_RATE_WINDOW_MS = 60_000;

export interface BackfillCursorState {
  /** Keywords of the last context uploaded; '' = from the start. */
  cursorKeywords: string;
  /** Its id (the page order is keywords prefix, then id); null when unknown. */
  cursorId: number | null;
  wrappedUnix: number | null;
  updatedUnix: number | null;
}

const EMPTY_CURSOR: BackfillCursorState = { cursorKeywords: '', cursorId: null, wrappedUnix: null, updatedUnix: null };

/** The cursor file: pretty JSON, written atomically; missing, unreadable or not an object = start. */
export class BackfillCursorFile {
  constructor(readonly path: string) {}

  async read(): Promise<BackfillCursorState> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(this.path, 'utf8'));
    } catch {
      return { ...EMPTY_CURSOR };
    }
    if (!isObject(parsed)) return { ...EMPTY_CURSOR };
    const int = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : null);
    return {
      cursorKeywords: typeof parsed.cursor_keywords === 'string' ? parsed.cursor_keywords : '',
      cursorId: int(parsed.cursor_id),
      wrappedUnix: int(parsed.wrapped_unix),
      updatedUnix: int(parsed.updated_unix),
    };
  }

  async write(state: BackfillCursorState): Promise<void> {
    const document = {
      cursor_keywords: state.cursorKeywords,
      ...(state.cursorId !== null ? { cursor_id: state.cursorId } : {}),
      ...(state.wrappedUnix !== null ? { wrapped_unix: state.wrappedUnix } : {}),
      ...(state.updatedUnix !== null ? { updated_unix: state.updatedUnix } : {}),
    };
    await ensurePrivateDir(dirname(this.path));
    await writeFileAtomic(this.path, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
  }
}

/** At most `max` takes per fixed window (restarted when a take finds it over). Process-local. */
export class RateWindow {
  #start: number | null = null;
  #taken = 0;

  constructor(
    private readonly now: () => number,
    private readonly windowMs = BACKFILL_RATE_WINDOW_MS,
  ) {}

  take(max: number): boolean {
    const now = this.now();
    if (this.#start === null || now - this.#start >= this.windowMs) {
      this.#start = now;
      this.#taken = 0;
    }
    if (this.#taken >= max) return false;
    this.#taken++;
    return true;
  }
}

export interface BackfillStore {
  pageContextKeys(after: KeywordsCursor | null, limit: number): Promise<ContextKey[]>;
  findByKeywords(keywords: string): Promise<Context | null>;
}

/** Where backfill uploads: the community contribute endpoint. */
export interface BackfillTarget {
  upsertAnswer(input: LearnInput): Promise<ContributeOutcome>;
}

export type BackfillIneligible =
  'shard_worker' | 'disabled' | 'contribution_disabled' | 'not_enrolled' | 'no_repository';

/**
 * Why backfill may not run now, or null (docs/rules.md#backfill): only the singleton process, when enabled,
 * with contribution enabled, a stored enrollment (manual tokens do not count) and a repository.
 */
export function backfillIneligible(
  config: Pick<ConfigSnapshot, 'server' | 'backfill'>,
  community: Pick<CorpusActivation['community'], 'contributeEnabled' | 'enrolledValid'>,
  hasRepository: boolean,
): BackfillIneligible | null {
  if (config.server.shardRole === 'worker') return 'shard_worker';
  if (!config.backfill.enabled) return 'disabled';
  if (!community.contributeEnabled) return 'contribution_disabled';
  if (!community.enrolledValid) return 'not_enrolled';
  if (!hasRepository) return 'no_repository';
  return null;
}

export interface BackfillOptions {
  /** Why backfill may not run now, or null (docs/rules.md#backfill). */
  ineligible: () => BackfillIneligible | null;
  settings: () => { batchSize: number; maxPerMinute: number };
  store: BackfillStore;
  pressure: PoolPressure;
  mirrorFull: () => boolean;
  target: () => BackfillTarget | null;
  budget: Pick<RemoteBudget, 'contributePermit'>;
  cursor: BackfillCursorFile;
  /** Whether a group's answers may go to the community (group config `share`); absent: all. */
  shareGroup?: (groupId: number) => boolean;
  clock: Clock;
  log: Log;
}

export interface BackfillCounters {
  rounds: number;
  skippedIneligible: number;
  skippedPressureRounds: number;
  contextsPushed: number;
  answersPushed: number;
  /** Contexts skipped for pool pressure or a full mirror queue. */
  contextsSkippedPressure: number;
  /** Contexts whose upload failed (refused, transport error, no budget); retried next round. */
  contextsFailed: number;
  /** Contexts left for the next window by the per-minute rate. */
  rateLimited: number;
  /** Answers without any text after normalisation (not uploaded). */
  answersWithoutText: number;
  wraps: number;
}

export type BackfillRoundOutcome = 'ineligible' | 'pressure' | 'empty' | 'wrapped' | 'paged';

export interface BackfillRoundResult {
  outcome: BackfillRoundOutcome;
  reason?: BackfillIneligible;
  pushed: number;
  cursor: string;
}

export class Backfill {
  readonly counters: BackfillCounters = {
    rounds: 0,
    skippedIneligible: 0,
    skippedPressureRounds: 0,
    contextsPushed: 0,
    answersPushed: 0,
    contextsSkippedPressure: 0,
    contextsFailed: 0,
    rateLimited: 0,
    answersWithoutText: 0,
    wraps: 0,
  };
  /** What was not uploaded because it may not leave the deployment, per reason. */
  readonly withheld = withheldCounters();
  readonly #rate: RateWindow;
  readonly #log: RateLimitedLog;

  constructor(private readonly options: BackfillOptions) {
    this.#rate = new RateWindow(() => options.clock.monotonicMs());
    this.#log = new RateLimitedLog(options.log, () => options.clock.monotonicMs());
  }

  /** One round (docs/rules.md#backfill). Never rejects for an upload failure; store errors propagate. */
  async runRound(): Promise<BackfillRoundResult> {
    const { options, counters } = this;
    const reason = options.ineligible();
    if (reason !== null) {
      counters.skippedIneligible++;
      return { outcome: 'ineligible', reason, pushed: 0, cursor: '' };
    }
    if (this.#underPressure()) {
      counters.skippedPressureRounds++;
      return { outcome: 'pressure', pushed: 0, cursor: '' };
    }
    counters.rounds++;
    const state = await options.cursor.read();
    const { batchSize, maxPerMinute } = options.settings();
    const after = state.cursorKeywords === '' && state.cursorId === null ? null : toCursor(state);
    const page = await options.store.pageContextKeys(after, batchSize);
    const nowSec = () => Math.floor(options.clock.nowMs() / 1000);
    if (page.length === 0) {
      if (after === null) return { outcome: 'empty', pushed: 0, cursor: '' };
      counters.wraps++;
      await options.cursor.write({ ...EMPTY_CURSOR, wrappedUnix: nowSec(), updatedUnix: nowSec() });
      return { outcome: 'wrapped', pushed: 0, cursor: '' };
    }
    let last: ContextKey | null = null;
    let pushed = 0;
    for (const [index, item] of page.entries()) {
      if (!this.#rate.take(maxPerMinute)) {
        counters.rateLimited += page.length - index;
        break;
      }
      if (this.#underPressure()) {
        counters.contextsSkippedPressure++;
        continue;
      }
      const context = await options.store.findByKeywords(item.keywords);
      // Deleted since the page was read: nothing to upload, nothing to come back for.
      if (context && !(await this.#upload(context))) {
        counters.contextsFailed++;
        continue;
      }
      if (context) {
        counters.contextsPushed++;
        pushed++;
      }
      last = item;
    }
    if (last !== null) {
      await options.cursor.write({
        cursorKeywords: last.keywords,
        cursorId: last.id,
        wrappedUnix: state.wrappedUnix,
        updatedUnix: nowSec(),
      });
    }
    return { outcome: 'paged', pushed, cursor: last?.keywords ?? state.cursorKeywords };
  }

  #underPressure(): boolean {
    return this.options.pressure.pressure() >= POOL_PRESSURE.mirrorDrop || this.options.mirrorFull();
  }

  /**
   * Every answer that may leave (de-identified: src/domain/deidentify.ts), each under the
   * background budget (waiting for a permit). A context of which nothing may leave is done.
   */
  async #upload(context: Context): Promise<boolean> {
    const target = this.options.target();
    if (!target) return false;
    const keywordsWithheld = withheldKeywords(context.keywords);
    if (keywordsWithheld !== null) {
      this.withheld.sink(keywordsWithheld);
      return true;
    }
    for (const answer of context.answers) {
      if (this.options.shareGroup?.(answer.groupId) === false) continue;
      // The first shareable message, else the answer keywords as text (an answer learned without
      // a stored message still carries its words).
      const shared = communityAnswer(answer, this.withheld.sink, true);
      const message = shared ? (shared.messages[0] ?? communityLabel(shared.keywords)) : null;
      if (message === null || message === undefined) {
        this.counters.answersWithoutText++;
        continue;
      }
      const release = await this.options.budget.contributePermit();
      if (!release) return false;
      let outcome: ContributeOutcome;
      try {
        outcome = await target.upsertAnswer({
          keywords: context.keywords,
          groupId: COMMUNITY_GROUP_ID,
          answerKeywords: answer.keywords,
          answerTime: answer.time || 0,
          message,
          appendOnExisting: true,
        });
      } catch (error) {
        this.#log.warn(
          'upload',
          { error: errorMessage(error) },
          'backfill upload failed',
        );
        return false;
      } finally {
        release();
      }
      if (outcome !== 'ok') return false;
      this.counters.answersPushed++;
    }
    return true;
  }
}

function toCursor(state: BackfillCursorState): KeywordsCursor {
  return { keywords: state.cursorKeywords, id: state.cursorId };
}
