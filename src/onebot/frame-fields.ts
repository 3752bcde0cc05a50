/**
 * Reading fields of a OneBot frame: integers that may arrive as decimal strings, accounts, strings.
 * A field of the wrong shape throws `ShapeError` naming it; `events.ts` turns that into a value.
 */

/**
 * Why an event was refused: a message over the size limits, or an event naming another account
 * than the connection's (X-Self-ID), which would otherwise be attributed to the wrong bot.
 */
export type RefusalReason = 'oversized' | 'self_id_mismatch';

/** Thrown while reading a frame; `parseEvent` turns it into a value. */
export class RefusedError extends Error {
  constructor(
    readonly reason: RefusalReason,
    detail: string,
  ) {
    super(detail);
  }
}

/** Thrown while reading a frame; `parseEvent` turns it into a value. */
export class ShapeError extends Error {
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(detail);
  }
}

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const DIGITS = /^-?\d{1,16}$/;

/** Integers arrive as numbers; a few implementations send some ids as decimal strings. */
export function toInteger(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value === 'string' && DIGITS.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : null;
  }
  return null;
}

export function integer(frame: Json, key: string): number {
  const n = toInteger(frame[key]);
  if (n === null) throw new ShapeError(key, 'expected an integer');
  return n;
}

/** QQ numbers and group numbers are positive. */
export function account(frame: Json, key: string): number {
  const n = integer(frame, key);
  if (n <= 0) throw new ShapeError(key, 'expected a positive integer');
  return n;
}

export function optionalString(frame: Json, key: string, at = key): string {
  const value = frame[key];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new ShapeError(at, 'expected a string');
  return value;
}

export function requiredString(frame: Json, key: string): string {
  const value = frame[key];
  if (typeof value !== 'string') throw new ShapeError(key, 'expected a string');
  return value;
}

/** Unix seconds; a frame without a time gets the arrival time. */
export function eventTime(frame: Json, nowMs: number): number {
  return frame.time === undefined ? Math.floor(nowMs / 1000) : integer(frame, 'time');
}

export function optionalBoolean(frame: Json, key: string): boolean | null {
  return typeof frame[key] === 'boolean' ? frame[key] : null;
}
