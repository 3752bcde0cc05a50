/**
 * One long operation (an install, an update, a backup) as the console shows it: a phase, a
 * message, a percentage, the events that led there and, at the end, a result or an error. Events
 * carry sequence numbers so any number of readers follow the same list with their own cursor:
 * nothing is queued per reader, and a reader that connects late replays from the start.
 */
import type { JobLimits } from './limits.ts';

export type JobPhase = 'queued' | 'running' | 'done' | 'failed';

/**
 * A message as a code with parameters, which the console words in the reader's language
 * (`message` stays, in English, for logs and the command line). Codes are dotted, e.g.
 * `corpus_file.not_json` with `{line: 5002}`.
 */
export interface JobText {
  readonly code: string;
  readonly params: Readonly<Record<string, string | number>>;
}

export interface JobEvent {
  /** 0, 1, 2… in the order pushed. */
  readonly seq: number;
  readonly phase: JobPhase;
  readonly message: string;
  readonly progress_percent: number;
  readonly error: string | null;
  /** Unix milliseconds. */
  readonly ts: number;
  /** An output line of the program the job runs, when the event is one. */
  readonly line?: string;
  /** `message` (or `error`) as a code with parameters, when the work gave one. */
  readonly text?: JobText;
}

export interface JobSnapshot {
  job_id: string;
  kind: string;
  action: string | null;
  phase: JobPhase;
  message: string;
  /** The current message (or the error) as a code with parameters, or null. */
  text: JobText | null;
  progress_percent: number;
  result: Record<string, unknown> | null;
  error: string | null;
  /** Unix milliseconds. */
  created_at: number;
  updated_at: number;
  /** The last output lines. */
  log_lines: string[];
}

export type JobListener = () => void;

const clampPercent = (value: number): number => Math.max(0, Math.min(100, Math.round(value)));

export class Job {
  readonly id: string;
  readonly kind: string;
  readonly action: string | null;
  readonly createdAt: number;
  #updatedAt: number;
  #phase: JobPhase = 'queued';
  #message: string;
  #text: JobText | null = null;
  #percent = 0;
  #result: Record<string, unknown> | null = null;
  #error: string | null = null;
  /** Events from `#firstSeq` on; older ones were dropped past the cap. */
  readonly #events: JobEvent[] = [];
  #firstSeq = 0;
  #nextSeq = 0;
  readonly #lines: string[] = [];
  readonly #listeners = new Set<JobListener>();
  readonly #now: () => number;
  readonly #limits: JobLimits;

  constructor(init: { id: string; kind: string; action: string | null; now: () => number; limits: JobLimits }) {
    this.id = init.id;
    this.kind = init.kind;
    this.action = init.action;
    this.#now = init.now;
    this.#limits = init.limits;
    this.createdAt = init.now();
    this.#updatedAt = this.createdAt;
    this.#message = 'queued';
    this.#push({ phase: 'queued', message: 'queued', error: null });
  }

  get phase(): JobPhase {
    return this.#phase;
  }

  get finished(): boolean {
    return this.#phase === 'done' || this.#phase === 'failed';
  }

  get progressPercent(): number {
    return this.#percent;
  }

  /** A step of the job (running phase). */
  progress(percent: number, message: string, text?: JobText): void {
    if (this.finished) return;
    this.#percent = clampPercent(percent);
    this.#push({ phase: 'running', message, error: null, ...(text ? { text } : {}) });
  }

  /** An output line; `percent` moves the bar when given. */
  line(text: string, percent?: number): void {
    if (this.finished) return;
    if (percent !== undefined) this.#percent = clampPercent(Math.max(this.#percent, percent));
    this.#lines.push(text);
    if (this.#lines.length > this.#limits.logLinesKept)
      this.#lines.splice(0, this.#lines.length - this.#limits.logLinesKept);
    this.#push({
      phase: 'running',
      message: this.#message,
      error: null,
      line: text,
      ...(this.#text ? { text: this.#text } : {}),
    });
  }

  succeed(result: Record<string, unknown>, message: string, text?: JobText): void {
    if (this.finished) return;
    this.#result = result;
    this.#percent = 100;
    this.#push({ phase: 'done', message, error: null, ...(text ? { text } : {}) });
  }

  /** Ends the job as failed; the bar keeps its last position. */
  fail(error: string, result: Record<string, unknown> | null = null, text?: JobText): void {
    if (this.finished) return;
    this.#error = error;
    this.#result = result;
    this.#push({ phase: 'failed', message: error, error, ...(text ? { text } : {}) });
  }

  snapshot(): JobSnapshot {
    return {
      job_id: this.id,
      kind: this.kind,
      action: this.action,
      phase: this.#phase,
      message: this.#message,
      text: this.#text,
      progress_percent: this.#percent,
      result: this.#result,
      error: this.#error,
      created_at: this.createdAt,
      updated_at: this.#updatedAt,
      log_lines: this.#lines.slice(-this.#limits.logLinesShown),
    };
  }

  /** Sequence number of the oldest event still held. */
  get firstSeq(): number {
    return this.#firstSeq;
  }

  /** Sequence number the next event will get. */
  get nextSeq(): number {
    return this.#nextSeq;
  }

  /** Events with `seq >= from` still held, oldest first. */
  eventsFrom(from: number): readonly JobEvent[] {
    const start = Math.max(0, from - this.#firstSeq);
    return this.#events.slice(start);
  }

  /** Called after every new event; returns the unsubscribe. */
  subscribe(listener: JobListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #push(event: { phase: JobPhase; message: string; error: string | null; line?: string; text?: JobText }): void {
    const ts = this.#now();
    this.#phase = event.phase;
    this.#message = event.message;
    this.#text = event.text ?? null;
    this.#updatedAt = ts;
    this.#events.push({ seq: this.#nextSeq++, progress_percent: this.#percent, ts, ...event });
    if (this.#events.length > this.#limits.eventsKept) {
      const drop = this.#events.length - this.#limits.eventsKept;
      this.#events.splice(0, drop);
      this.#firstSeq += drop;
    }
    for (const listener of [...this.#listeners]) listener();
  }
}
