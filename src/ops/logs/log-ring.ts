/**
 * The service's recent log entries, kept in memory for the console (`GET /logs`, its export and
 * live stream, `GET /log-errors`). It is fed the very JSON lines the logger writes (after field
 * bounding and redaction, see src/app/logger.ts), so it never holds what the log would not.
 * Bounded twice: by entries and by the bytes of their lines, the oldest going first; errors and
 * fatal entries are also kept in their own small ring, so a burst of info lines cannot push the
 * last error out of sight before someone looks.
 */

export const LOG_LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;
export type LogLevelName = keyof typeof LOG_LEVELS;
export const LOG_LEVEL_NAMES = Object.keys(LOG_LEVELS) as LogLevelName[];

export interface LogEntry {
  /** Sequence number, from 1, increasing; a stream resumes after it. */
  readonly id: number;
  readonly level: LogLevelName;
  /** Unix milliseconds. */
  readonly time: number;
  readonly scope: string;
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

export interface LogFilter {
  /** The least severe level shown. */
  level?: LogLevelName;
  scope?: string;
  /** Case-insensitive text in the message or the fields. */
  text?: string;
}

export interface LogRingOptions {
  maxEntries: number;
  maxBytes: number;
  maxErrors: number;
}

export const LOG_RING_DEFAULTS: LogRingOptions = { maxEntries: 5000, maxBytes: 4 * 1024 * 1024, maxErrors: 500 };

/** pino's own keys; everything else on a line is a field. */
const BASE_KEYS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service']);

/**
 * When a line has no `scope` field, the first of these it carries names its scope: enough to
 * filter console, OneBot, repeater and storage lines apart without touching every call site.
 */
const SCOPE_HINTS: readonly (readonly [string, string])[] = [
  ['route', 'console'],
  ['job_id', 'jobs'],
  ['self_id', 'onebot'],
  ['group_id', 'repeater'],
  ['storage', 'store'],
  ['hub', 'community'],
];

interface Stored {
  entry: LogEntry;
  bytes: number;
  /** Lower-cased message and fields, built on the first text search. */
  haystack?: string;
}

export class LogRing {
  readonly #options: LogRingOptions;
  #entries: Stored[] = [];
  /** Index of the oldest live entry in #entries (dropped entries are compacted in batches). */
  #head = 0;
  #bytes = 0;
  #nextId = 1;
  #errors: LogEntry[] = [];
  #errorsSinceCleanup = 0;
  #clearedAt: number | null = null;
  readonly #listeners = new Set<() => void>();
  /** Lines that were not JSON (counted, not kept). */
  unparsed = 0;

  constructor(options: Partial<LogRingOptions> = {}) {
    this.#options = { ...LOG_RING_DEFAULTS, ...options };
  }

  get maxEntries(): number {
    return this.#options.maxEntries;
  }

  /** The id the next entry will get. */
  get nextId(): number {
    return this.#nextId;
  }

  /** The id of the oldest entry still kept (equals nextId when empty). */
  get oldestId(): number {
    return this.#entries[this.#head]?.entry.id ?? this.#nextId;
  }

  get size(): number {
    return this.#entries.length - this.#head;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** A stream pino can write to (one or more JSON lines per call). */
  stream(): { write(chunk: string): boolean } {
    return {
      write: (chunk: string) => {
        for (const line of chunk.split('\n')) if (line !== '') this.write(line);
        return true;
      },
    };
  }

  write(line: string): void {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(line) as Record<string, unknown>;
    } catch {
      this.unparsed++;
      return;
    }
    const fields: Record<string, unknown> = {};
    for (const key of Object.keys(parsed)) if (!BASE_KEYS.has(key)) fields[key] = parsed[key];
    const entry: LogEntry = {
      id: this.#nextId++,
      level: levelName(parsed.level),
      time: typeof parsed.time === 'number' ? parsed.time : Date.now(),
      scope: scopeOf(fields),
      message: typeof parsed.msg === 'string' ? parsed.msg : '',
      fields,
    };
    this.#entries.push({ entry, bytes: line.length });
    this.#bytes += line.length;
    while (this.size > this.#options.maxEntries || (this.#bytes > this.#options.maxBytes && this.size > 1)) {
      const dropped = this.#entries[this.#head++] as Stored;
      this.#bytes -= dropped.bytes;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#entries.length) {
      this.#entries = this.#entries.slice(this.#head);
      this.#head = 0;
    }
    if (LOG_LEVELS[entry.level] >= LOG_LEVELS.error) {
      this.#errors.push(entry);
      this.#errorsSinceCleanup++;
      if (this.#errors.length > this.#options.maxErrors)
        this.#errors.splice(0, this.#errors.length - this.#options.maxErrors);
    }
    for (const listener of this.#listeners) listener();
  }

  /** The newest `limit` entries that match, oldest first. */
  recent(filter: LogFilter, limit: number): LogEntry[] {
    const found: LogEntry[] = [];
    const match = matcher(filter);
    for (let i = this.#entries.length - 1; i >= this.#head && found.length < limit; i--) {
      const stored = this.#entries[i] as Stored;
      if (match(stored)) found.push(stored.entry);
    }
    return found.reverse();
  }

  /**
   * Up to `limit` matching entries with an id of at least `fromId`, oldest first, and how many ids
   * before the oldest kept entry were asked for but are gone (a reader that fell behind).
   */
  from(fromId: number, filter: LogFilter, limit: number): { entries: LogEntry[]; skipped: number; nextId: number } {
    const oldest = this.oldestId;
    const skipped = Math.max(0, oldest - fromId);
    const start = this.#head + Math.max(0, fromId - oldest);
    const match = matcher(filter);
    const entries: LogEntry[] = [];
    let i = start;
    for (; i < this.#entries.length && entries.length < limit; i++) {
      const stored = this.#entries[i] as Stored;
      if (match(stored)) entries.push(stored.entry);
    }
    const nextId = i < this.#entries.length ? (this.#entries[i] as Stored).entry.id : this.#nextId;
    return { entries, skipped, nextId };
  }

  /** Called after each new entry; returns the removal. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The newest error and fatal entries since the last cleanup, newest first. */
  errors(limit: number): { entries: LogEntry[]; total: number; clearedAt: number | null } {
    return {
      entries: this.#errors.slice(-limit).reverse(),
      total: this.#errorsSinceCleanup,
      clearedAt: this.#clearedAt,
    };
  }

  /** Forgets the error entries (they stay in the main ring); returns how many were forgotten. */
  clearErrors(nowMs: number): number {
    const removed = this.#errors.length;
    this.#errors = [];
    this.#errorsSinceCleanup = 0;
    this.#clearedAt = nowMs;
    return removed;
  }
}

function levelName(value: unknown): LogLevelName {
  if (typeof value !== 'number') return 'info';
  let name: LogLevelName = 'trace';
  for (const candidate of LOG_LEVEL_NAMES) if (value >= LOG_LEVELS[candidate]) name = candidate;
  return name;
}

function scopeOf(fields: Record<string, unknown>): string {
  if (typeof fields.scope === 'string' && fields.scope !== '') return fields.scope.slice(0, 64);
  for (const [key, scope] of SCOPE_HINTS) if (key in fields) return scope;
  return 'service';
}

function matcher(filter: LogFilter): (stored: Stored) => boolean {
  const least = filter.level ? LOG_LEVELS[filter.level] : 0;
  const scope = filter.scope || undefined;
  const text = filter.text ? filter.text.toLowerCase() : undefined;
  return (stored) => {
    const entry = stored.entry;
    if (LOG_LEVELS[entry.level] < least) return false;
    if (scope !== undefined && entry.scope !== scope) return false;
    if (text !== undefined) {
      stored.haystack ??= `${entry.message}\n${JSON.stringify(entry.fields)}`.toLowerCase();
      if (!stored.haystack.includes(text)) return false;
    }
    return true;
  };
}

/** One entry as a line of text (the export): time, level, scope, message, then the fields as JSON. */
export function formatLogEntry(entry: LogEntry): string {
  const fields = Object.keys(entry.fields).length > 0 ? ` ${JSON.stringify(entry.fields)}` : '';
  return `${new Date(entry.time).toISOString()} ${entry.level.toUpperCase().padEnd(5)} [${entry.scope}] ${entry.message}${fields}`;
}
