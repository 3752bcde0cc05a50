/**
 * The portable corpus file (docs/guide/backups.md): gzip-compressed
 * JSON Lines. The first line is a header naming the format and its version; each further line is
 * one context with its answers (keywords, group, count, time, messages) and bans. Reading checks
 * every field and names the line and field of the first problem.
 */
import type { Answer, Ban, Context } from '../../domain/corpus.ts';

export const CORPUS_FILE_FORMAT = 'chorus-corpus';
export const CORPUS_FILE_VERSION = 1;

export interface CorpusFileHeader {
  format: typeof CORPUS_FILE_FORMAT;
  version: number;
  /** Unix seconds. */
  exported_at: number;
  /** Contexts in the file (as counted when the export started; the lines are the truth). */
  contexts: number;
  anonymised: boolean;
  /** The groups the export was limited to, or null for all. */
  groups: number[] | null;
  /** The program that wrote it, for example "chorus 0.1.0". */
  generator: string;
}

interface ContextLine {
  keywords: string;
  time: number;
  trigger_count: number;
  clear_time: number;
  answers: { keywords: string; group_id: number; count: number; time: number; messages: string[] }[];
  bans: { keywords: string; group_id: number; reason: string; time: number }[];
}

export function contextLine(context: Context): string {
  const line: ContextLine = {
    keywords: context.keywords,
    time: context.time,
    trigger_count: context.triggerCount,
    clear_time: context.clearTime,
    answers: context.answers.map((answer) => ({
      keywords: answer.keywords,
      group_id: answer.groupId,
      count: answer.count,
      time: answer.time,
      messages: answer.messages,
    })),
    bans: context.bans.map((ban) => ({
      keywords: ban.keywords,
      group_id: ban.groupId,
      reason: ban.reason,
      time: ban.time,
    })),
  };
  return JSON.stringify(line);
}

/**
 * A problem with a corpus file. `code` and `params` say it for the console, which words it in the
 * reader's language (JobText, `corpus_file.<code>`); `message` says it in English for the command
 * line and the logs.
 */
export class CorpusFileError extends Error {
  override readonly name = 'CorpusFileError';
  constructor(
    message: string,
    readonly code = 'invalid',
    readonly params: Readonly<Record<string, string | number>> = {},
  ) {
    super(message);
  }
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parseJson(text: string, lineNumber: number): Json {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CorpusFileError(`line ${lineNumber}: not valid JSON`, 'not_json', { line: lineNumber });
  }
  if (!isObject(value))
    throw new CorpusFileError(`line ${lineNumber}: expected a JSON object`, 'not_object', { line: lineNumber });
  return value;
}

export function parseHeader(text: string): CorpusFileHeader {
  const value = parseJson(text, 1);
  if (value.format !== CORPUS_FILE_FORMAT) {
    throw new CorpusFileError(
      `line 1: not a Chorus corpus file (format must be "${CORPUS_FILE_FORMAT}")`,
      'not_corpus_file',
    );
  }
  if (value.version !== CORPUS_FILE_VERSION) {
    throw new CorpusFileError(
      `line 1: version ${String(value.version)} is not supported (this Chorus reads ${CORPUS_FILE_VERSION})`,
      'bad_version',
      { version: String(value.version).slice(0, 32), supported: CORPUS_FILE_VERSION },
    );
  }
  return {
    format: CORPUS_FILE_FORMAT,
    version: CORPUS_FILE_VERSION,
    exported_at: typeof value.exported_at === 'number' ? value.exported_at : 0,
    contexts: typeof value.contexts === 'number' ? value.contexts : 0,
    anonymised: value.anonymised === true,
    groups: Array.isArray(value.groups) ? value.groups.filter((g): g is number => Number.isSafeInteger(g)) : null,
    generator: typeof value.generator === 'string' ? value.generator : '',
  };
}

class Reader {
  constructor(
    private readonly lineNumber: number,
    private readonly path: string,
    private readonly value: Json,
  ) {}

  /** `expected`: a code the console words (`corpus_file.expected.<code>`), with `min` for integers. */
  #fail(key: string, expected: 'string' | 'non_empty_string' | 'integer' | 'list' | 'object', min = 0): never {
    const english = {
      string: 'a string',
      non_empty_string: 'a non-empty string',
      integer: `an integer >= ${min}`,
      list: 'a list',
      object: 'an object',
    }[expected];
    const field = `${this.path}${key}`;
    throw new CorpusFileError(`line ${this.lineNumber}: ${field}: expected ${english}`, 'bad_field', {
      line: this.lineNumber,
      field,
      expected,
      min,
    });
  }

  text(key: string, options: { nonEmpty?: boolean } = {}): string {
    const value = this.value[key];
    if (typeof value !== 'string' || (options.nonEmpty === true && value.trim() === '')) {
      this.#fail(key, options.nonEmpty === true ? 'non_empty_string' : 'string');
    }
    return value;
  }

  integer(key: string, min = 0): number {
    const value = this.value[key];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) this.#fail(key, 'integer', min);
    return value;
  }

  list(key: string): unknown[] {
    const value = this.value[key];
    if (value === undefined) return [];
    if (!Array.isArray(value)) this.#fail(key, 'list');
    return value;
  }

  item(key: string, index: number, item: unknown): Reader {
    if (!isObject(item)) this.#fail(`${key}[${index}]`, 'object');
    return new Reader(this.lineNumber, `${this.path}${key}[${index}].`, item);
  }

  strings(key: string): string[] {
    return this.list(key).map((item, index) => {
      if (typeof item !== 'string') this.#fail(`${key}[${index}]`, 'string');
      return item;
    });
  }
}

export function parseContextLine(text: string, lineNumber: number): Context {
  const read = new Reader(lineNumber, '', parseJson(text, lineNumber));
  const answers: Answer[] = read.list('answers').map((item, index) => {
    const answer = read.item('answers', index, item);
    return {
      keywords: answer.text('keywords', { nonEmpty: true }),
      groupId: answer.integer('group_id'),
      count: answer.integer('count', 1),
      time: answer.integer('time'),
      messages: answer.strings('messages'),
    };
  });
  const bans: Ban[] = read.list('bans').map((item, index) => {
    const ban = read.item('bans', index, item);
    return {
      keywords: ban.text('keywords', { nonEmpty: true }),
      groupId: ban.integer('group_id'),
      reason: ban.text('reason'),
      time: ban.integer('time'),
    };
  });
  return {
    keywords: read.text('keywords', { nonEmpty: true }),
    time: read.integer('time'),
    triggerCount: read.integer('trigger_count'),
    clearTime: read.integer('clear_time'),
    answers,
    bans,
  };
}
