/**
 * An answer of the AI service's log endpoint, `{kind, path, lines, error, source}` (or the same
 * inside `{data: …}`), read into what a tail or a stream uses: its last `maxLines` lines, the path
 * and the error it reports. Only that much is ever kept, however many lines the AI service sent.
 *
 * The answer is read as a stream of JSON tokens, with the same result as JSON.parse (an answer
 * that is not valid JSON, or not an object, is `object: false`), pausing after every
 * LOG_ANSWER_SLICE_CHARS characters so other requests are answered meanwhile: parsing a 2 MB answer
 * of 300,000 short lines whole held the event loop for tens of milliseconds (hundreds on a busy
 * machine) at every poll of a live stream.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { LOG_ANSWER_SLICE_CHARS } from './limits.ts';

export interface LogAnswer {
  /** Whether the answer (or its `data`) is a JSON object; the rest is empty when it is not. */
  object: boolean;
  lines: string[];
  path: string | null;
  error: string | null;
}

const NOT_AN_OBJECT: LogAnswer = { object: false, lines: [], path: null, error: null };

/** The fields read from one object (the answer, or its `data`); a later duplicate key wins. */
class Fields {
  lines: string[] = [];
  path: string | null = null;
  error: string | null = null;

  constructor(private readonly maxLines: number) {}

  /** Keeps the last maxLines lines, trimming now and then so the work stays linear. */
  addLine(line: string): void {
    this.lines.push(line);
    if (this.lines.length >= 2 * this.maxLines) this.lines = this.lines.slice(-this.maxLines);
  }

  answer(): LogAnswer {
    return { object: true, lines: this.lines.slice(-this.maxLines), path: this.path, error: this.error };
  }
}

/** What a container being read is: the answer, its `data`, a `lines` list of one of them, or other. */
type Role = 'answer' | 'data' | 'lines' | 'other';

interface Frame {
  kind: 'object' | 'array';
  role: Role;
  /** The fields of this object, when it is the answer or its data. */
  fields: Fields | null;
  /** Object: the key whose value comes next; null while a key is expected. */
  key: string | null;
  /** Whether a value has been read in this container. */
  hasValue: boolean;
  /** Whether a comma was just read. */
  afterComma: boolean;
}

class Invalid extends Error {}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;
/** A string with an escape or a control character (which JSON refuses) goes through JSON.parse. */
const NEEDS_DECODING = /[\\\u0000-\u001f]/;

export async function readLogAnswer(text: string, maxLines: number): Promise<LogAnswer> {
  try {
    return await read(text, maxLines);
  } catch (error) {
    if (error instanceof Invalid) return NOT_AN_OBJECT;
    throw error;
  }
}

async function read(text: string, maxLines: number): Promise<LogAnswer> {
  const stack: Frame[] = [];
  let at = 0;
  let pauseAt = LOG_ANSWER_SLICE_CHARS;
  let rootKind: 'object' | 'other' | null = null;
  let answerFields: Fields | null = null;
  /** The answer's `data`: its fields when an object, 'array' when a list, null when absent or scalar. */
  let data: Fields | 'array' | null = null;

  const skipWhitespace = () => {
    WHITESPACE.lastIndex = at;
    WHITESPACE.exec(text);
    at = WHITESPACE.lastIndex;
  };
  const readString = (): string => {
    let end = text.indexOf('"', at + 1);
    for (;;) {
      if (end < 0) throw new Invalid();
      let backslashes = 0;
      while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
      if (backslashes % 2 === 0) break;
      end = text.indexOf('"', end + 1);
    }
    const start = at;
    at = end + 1;
    const plain = text.slice(start + 1, end);
    if (!NEEDS_DECODING.test(plain)) return plain;
    try {
      // JSON.parse decodes the escapes and refuses what JSON does (control characters, bad escapes).
      return JSON.parse(text.slice(start, end + 1)) as string;
    } catch {
      throw new Invalid();
    }
  };

  /** A value that is not a container was read (`value` is its string, or undefined for others). */
  const scalar = (value: string | undefined) => {
    const frame = stack.at(-1);
    if (frame === undefined) {
      rootKind = 'other';
      return;
    }
    if (frame.role === 'lines') {
      if (value !== undefined) frame.fields?.addLine(value);
    } else if (frame.fields !== null && frame.key !== null) {
      if (frame.key === 'path') frame.fields.path = value === undefined || value === '' ? null : value;
      if (frame.key === 'error') frame.fields.error = value === undefined || value === '' ? null : value;
      if (frame.key === 'lines') frame.fields.lines = [];
      if (frame.key === 'data' && frame.role === 'answer') data = null;
    }
    valueDone(frame);
  };
  const valueDone = (frame: Frame | undefined) => {
    if (frame === undefined) return;
    frame.hasValue = true;
    frame.afterComma = false;
    if (frame.kind === 'object') frame.key = null;
  };
  const open = (kind: 'object' | 'array') => {
    const parent = stack.at(-1);
    let role: Role = 'other';
    let fields: Fields | null = null;
    if (parent === undefined) {
      rootKind = kind === 'object' ? 'object' : 'other';
      if (kind === 'object') {
        role = 'answer';
        fields = answerFields = new Fields(maxLines);
      }
    } else if (parent.fields !== null && parent.kind === 'object') {
      // Path and error must be strings, as JSON.parse's reader would have them.
      if (parent.key === 'path') parent.fields.path = null;
      if (parent.key === 'error') parent.fields.error = null;
      if (parent.key === 'lines' && kind === 'array') {
        role = 'lines';
        fields = parent.fields;
        fields.lines = [];
      } else if (parent.key === 'lines') {
        parent.fields.lines = [];
      }
      if (parent.role === 'answer' && parent.key === 'data') {
        if (kind === 'object') {
          role = 'data';
          fields = new Fields(maxLines);
          data = fields;
        } else {
          data = 'array';
        }
      }
    }
    stack.push({ kind, role, fields, key: null, hasValue: false, afterComma: false });
    at++;
  };
  const close = (kind: 'object' | 'array') => {
    const frame = stack.pop();
    if (frame === undefined || frame.kind !== kind || frame.afterComma || (kind === 'object' && frame.key !== null))
      throw new Invalid();
    at++;
    valueDone(stack.at(-1));
  };

  skipWhitespace();
  while (at < text.length) {
    if (at >= pauseAt) {
      await nextTurn();
      pauseAt = at + LOG_ANSWER_SLICE_CHARS;
    }
    const frame = stack.at(-1);
    const char = text[at];
    if (frame !== undefined && frame.hasValue && !frame.afterComma && char !== ',' && char !== '}' && char !== ']')
      throw new Invalid();
    if (frame === undefined && rootKind !== null) throw new Invalid();
    if (frame?.kind === 'object' && frame.key === null) {
      // A key, a comma or the end of the object.
      if (char === '}') close('object');
      else if (char === ',' && frame.hasValue && !frame.afterComma) {
        frame.afterComma = true;
        at++;
      } else if (char === '"' && (!frame.hasValue || frame.afterComma)) {
        frame.key = readString();
        skipWhitespace();
        if (text[at] !== ':') throw new Invalid();
        at++;
      } else throw new Invalid();
    } else if (char === ']' && frame?.kind === 'array') close('array');
    else if (char === ',' && frame?.kind === 'array' && frame.hasValue && !frame.afterComma) {
      frame.afterComma = true;
      at++;
    } else if (char === '{') open('object');
    else if (char === '[') open('array');
    else if (char === '"') scalar(readString());
    else if (text.startsWith('true', at) || text.startsWith('null', at)) {
      at += 4;
      scalar(undefined);
    } else if (text.startsWith('false', at)) {
      at += 5;
      scalar(undefined);
    } else {
      NUMBER.lastIndex = at;
      if (NUMBER.exec(text) === null) throw new Invalid();
      at = NUMBER.lastIndex;
      scalar(undefined);
    }
    skipWhitespace();
  }
  if (stack.length > 0 || rootKind !== 'object' || answerFields === null) return NOT_AN_OBJECT;
  if (data === 'array') return NOT_AN_OBJECT;
  return (data ?? (answerFields as Fields)).answer();
}
